"""Several worker processes (``serve --workers N``): `ownership` (which process runs which table, by a
compare-and-set in the database), `worker` (the once-a-second tick: fence, takeovers, housekeeping),
`addresses` (where another worker is reached) and `supervisor` (starts and restarts the workers)."""
