"""The server: the only layer that talks to sockets, the database and the wall clock.

Packages by job, lowest first (each imports only those before it when it runs; `tests/architecture`
checks it):

- `settings`, `logs`, `errors` (the typed refusals), `metrics`, `context` (what the parts share);
- `storage`: the group writer, one step's rows, reading a table back, heartbeats, the clock rows;
- `connections`: one socket of a table (`Connection`) and publishing versioned per-viewer frames;
- `tables`: the table runtime: the actor and its commands, the registry of loaded tables, robots;
- `accounts`: who is connected, tickets, room access (privacy), rate limits, the audit log;
- `cluster`: several worker processes: ownership of tables, the worker tick, the supervisor;
- `http`: the FastAPI side: routes, the websocket endpoint, middleware, dependencies, error handlers;
- `app`: the composition root (`create_app`), which builds the context and starts the background work.
"""
