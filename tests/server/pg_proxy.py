"""A TCP relay between a server under test and its PostgreSQL, on a thread of its own (the server
subprocess talks through it while the test's loop is blocked, e.g. in `ServerProcess.start`).

Armed with `cut_next_commit`, it loses the reply to the next commit of the action log: the commit is
stored, the connection drops before the server hears so — an ambiguous commit, made at will. A commit is
either the COMMIT of a transaction that wrote to the action log, or the Sync after a single ``WITH``
statement that inserts into it (`storage.pg_batch`: one statement in its own, implicit, transaction).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading

from tests.server.ports import free_port

# Parse: the statement's name, then its text; Bind: the portal's name (asyncpg's is empty), the statement's.
_PARSE = re.compile(rb"P[\s\S]{4}(__asyncpg_stmt_[0-9a-f]+__)\x00([^\x00]*)\x00")
_BIND = re.compile(rb"B[\s\S]{4}\x00(__asyncpg_stmt_[0-9a-f]+__)\x00")
_SYNC = b"S\x00\x00\x00\x04"
_ACTIONS = b"INSERT INTO actions"


class PgProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.cut_next_commit = threading.Event()  # armed: the next such COMMIT's reply is lost
        self.cut = threading.Event()  # set once a reply was lost
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="pg-proxy", daemon=True)
        self._server: asyncio.Server | None = None

    def start(self) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(10)

    def close(self) -> None:
        async def stop() -> None:
            if self._server is not None:
                self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", self.port)

    async def _relay(self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter) -> None:
        try:
            server_in, server_out = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            client_out.close()
            return
        wrote_actions = False
        cutting = False
        # asyncpg sends a statement's text once (Parse), then only its prepared name (Bind).
        insert_names: set[bytes] = set()  # a statement that inserts into the action log
        one_statement_names: set[bytes] = set()  # ... and is a WITH query, run in a transaction of its own

        async def upstream() -> None:
            nonlocal wrote_actions, cutting
            while data := await client_in.read(1 << 16):
                parsed = _PARSE.findall(data)
                for name, text in parsed:
                    if _ACTIONS in text:
                        insert_names.add(name)
                        if text.startswith(b"WITH "):
                            one_statement_names.add(name)
                bound = set(_BIND.findall(data))
                in_transaction = insert_names - one_statement_names
                unnamed = _ACTIONS in data and not parsed  # a simple query's text
                wrote_actions = wrote_actions or bool(bound & in_transaction) or unnamed
                if bound & one_statement_names and _SYNC in data and self.cut_next_commit.is_set():
                    # Executed and committed at this Sync, and asyncpg waits for its reply before anything
                    # else: the reply that follows is the commit's.
                    self.cut_next_commit.clear()
                    cutting = True
                elif b"COMMIT" in data:
                    if wrote_actions and self.cut_next_commit.is_set():
                        self.cut_next_commit.clear()
                        cutting = True
                    wrote_actions = False
                server_out.write(data)
                await server_out.drain()

        async def downstream() -> None:
            while data := await server_in.read(1 << 16):
                if cutting:  # asyncpg waits for each reply, so this is the commit's: lost with the connection
                    self.cut.set()
                    return
                client_out.write(data)
                await client_out.drain()

        tasks = [asyncio.create_task(upstream()), asyncio.create_task(downstream())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            client_out.close()
            server_out.close()
