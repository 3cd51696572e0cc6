"""A TCP relay between a server under test and its PostgreSQL, on a thread of its own (the server
subprocess talks through it while the test's loop is blocked, e.g. in `ServerProcess.start`).

Armed with `cut_next_commit`, it loses the reply to the next COMMIT of a transaction that wrote to the
action log: the commit is stored, the connection drops before the server hears so — an ambiguous commit,
made at will.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading

from tests.server.ports import free_port

_INSERT_ACTIONS = re.compile(rb"(__asyncpg_stmt_[0-9a-f]+__)\x00INSERT INTO actions")


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
        insert_names: set[bytes] = set()

        async def upstream() -> None:
            nonlocal wrote_actions, cutting
            while data := await client_in.read(1 << 16):
                insert_names.update(_INSERT_ACTIONS.findall(data))
                wrote_actions = (
                    wrote_actions or b"INSERT INTO actions" in data or any(n in data for n in insert_names)
                )
                if b"COMMIT" in data:
                    if wrote_actions and self.cut_next_commit.is_set():
                        self.cut_next_commit.clear()
                        cutting = True
                    wrote_actions = False
                server_out.write(data)
                await server_out.drain()

        async def downstream() -> None:
            while data := await server_in.read(1 << 16):
                if cutting:  # asyncpg waits for each reply, so this is the COMMIT's: lost with the connection
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
