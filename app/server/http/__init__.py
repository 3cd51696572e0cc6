"""The HTTP side: REST routes by resource (`routes`), the table websocket endpoint (`ws`), dependencies
(`deps`), middleware and the HTTP protocol guards (`middleware`, `transport`), forwarding to the worker
that owns a table (`forward`), and the one place errors become responses (`handlers`)."""
