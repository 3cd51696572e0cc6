"""Server configuration from the environment (pydantic-settings).

``DATABASE_URL`` selects the database: SQLite through aiosqlite by default (no set-up), PostgreSQL through
asyncpg in production. Everything else is prefixed ``PREFERANS_``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./var/preferans.db"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PREFERANS_", extra="ignore")

    database_url: str = Field(
        DEFAULT_DATABASE_URL, validation_alias=AliasChoices("DATABASE_URL", "PREFERANS_DATABASE_URL")
    )
    # At least 32 characters. Empty: the secret is read from ``token_secret_file``, which is generated
    # (mode 600) on first start, so tokens survive a restart; never kept in the database.
    token_secret: str = ""
    token_secret_file: Path = Path("var/token_secret")
    token_ttl: float = Field(12 * 3600.0, gt=0, le=30 * 24 * 3600)
    # A websocket ticket is single-use and must be redeemed within this many seconds.
    ticket_ttl: float = Field(30.0, gt=0, le=600)
    # How often live sockets are checked against revocations made outside this process (the CLI).
    session_recheck_interval: float = Field(5.0, gt=0)
    # How often newly settled games are taken into the rating ladders (issue 21; app.server.ratings).
    ratings_interval: float = Field(1.0, gt=0)
    # The solver's analyses of finished deals: worker processes and how many analyses may wait (issue 21).
    analysis_workers: int = Field(1, ge=1, le=64)
    analysis_backlog: int = Field(16, ge=1, le=10_000)
    db_pool_size: int = Field(16, ge=1)
    db_max_overflow: int = Field(16, ge=0)
    # API requests and socket handshakes in progress at once; more are answered 503 ``busy`` at once
    # (`http.admission`). 0: the pool's size and overflow less 4 (the background work's).
    db_request_slots: int = Field(0, ge=0)
    # Of those, the API requests (not handshakes) that run at once; the others wait their turn, in order.
    # The loop that runs them runs every table too: a burst of requests, each a dozen round trips to the
    # database's thread, crowded the tables' moves out (issue 24). A request gives its turn back once its
    # answer starts, and while it waits for work not its own (a table, the solver, a password hash).
    requests_running: int = Field(8, ge=1)

    @property
    def request_slots(self) -> int:
        return self.db_request_slots or max(1, self.db_pool_size + self.db_max_overflow - 4)

    # A text frame above this many bytes gets a typed error; the transport closes far larger ones (1009).
    max_frame_bytes: int = Field(8192, ge=256)
    transport_max_bytes: int = Field(65536, ge=1024)
    max_request_bytes: int = Field(65536, ge=1024)
    # A connection must send a whole request head within this many seconds of opening (or of its previous
    # response), else it is closed: half-open and slowloris sockets do not pile up.
    header_timeout: float = Field(10.0, gt=0)
    # Connections (websockets included) from one client address; 0: no cap (behind a reverse proxy).
    max_connections_per_address: int = Field(256, ge=0)
    # A request body that takes longer than this to arrive is refused (408).
    body_timeout: float = Field(10.0, gt=0)
    # Token bucket per websocket connection.
    rate_per_second: float = Field(50.0, gt=0)
    rate_burst: float = Field(100.0, gt=0)
    # A connection that keeps flooding past the limit this many times in a row is closed.
    rate_strikes_to_close: int = Field(200, ge=1)
    send_queue_frames: int = Field(256, ge=8)
    send_queue_bytes: int = Field(8 << 20, ge=1 << 20)
    # A client that takes none of the data waiting for it (backlog, socket buffers, the kernel's send
    # queue) for this many seconds is dropped, at busy and quiet tables alike (connections.stalls).
    send_timeout: float = Field(30.0, gt=0)
    # Snapshots per connection (a resync is coalesced with one already on its way).
    resync_per_second: float = Field(1.0, gt=0)
    resync_burst: float = Field(3.0, ge=1)
    max_connections_per_user: int = Field(8, ge=1)
    max_connections_per_table: int = Field(200, ge=4)
    # Spectators' own, smaller share of a table's sockets: a seated player always gets one (within his
    # per-user cap), however many sockets watchers open (issue 25).
    max_spectators_per_table: int = Field(160, ge=1)
    # Seats one user may hold at tables still waiting for players (robots are not counted), and how long
    # a player may be gone from such a table (no socket to it) before his seat is freed (0: never).
    max_waiting_seats_per_user: int = Field(3, ge=1)
    waiting_seat_grace: float = Field(120.0, ge=0)
    # RULES §8.6 [ours]: after a restart or a takeover the running clock resumes when the seat to move is
    # connected again or after this many seconds, whichever is first.
    resume_grace: float = Field(10.0, gt=0)
    # Commands waiting in one table's queue beyond which players' and callers' ones are refused (table_busy).
    table_queue_limit: int = Field(1024, ge=16)
    # Password hashing (argon2id, 64 MiB each) runs on this many threads, with at most this many waiting.
    hash_workers: int = Field(2, ge=1, le=32)
    hash_backlog: int = Field(16, ge=0)
    # Login and register attempts (each costs a hash): per client address and, for login, per name.
    auth_address_per_minute: float = Field(60.0, gt=0)
    auth_address_burst: float = Field(20.0, ge=1)
    auth_name_per_minute: float = Field(10.0, gt=0)
    auth_name_burst: float = Field(5.0, ge=1)
    # Browser origins allowed to open websockets besides the server's own (comma-separated
    # "https://host:port"); a request without an Origin header (not a browser) is not affected.
    allowed_origins: str = ""
    # The API's schema (/openapi.json) and its interactive docs (/docs, served by the app: app.web.api_docs).
    api_docs: bool = True
    # Unfinished tables (waiting or playing) in the rooms of one operator.
    max_live_tables_per_operator: int = Field(100, ge=1)
    # Table chat (issue 22 §4): a message's length, and messages per minute (with bursts) per user across
    # tables and per table across users.
    chat_max_length: int = Field(300, ge=1, le=2000)
    chat_user_per_minute: float = Field(12.0, gt=0)
    chat_user_burst: float = Field(5.0, ge=1)
    chat_table_per_minute: float = Field(60.0, gt=0)
    chat_table_burst: float = Field(20.0, ge=1)
    # "text" (uvicorn's lines) or "json" (one JSON object per line, with the table id on table lines).
    log_format: Literal["text", "json"] = "text"
    # The last-resort wall-time guard of one table step that needs the robot (a timed-out seat's discard
    # and the rest of the deal): past it the robot's search is cancelled and the deal archived as
    # interrupted (§8.4). The robots' own limits are node counts, so the guard never changes a decision
    # made within it. Their whole budgets (60 M nodes a discard, 20 M a card) take about 4 s on the quiet
    # dev machine and 33 s with it ten times oversubscribed (bench/solver.py, app/autoplay/robot.py).
    robot_guard_seconds: float = Field(60.0, gt=0)
    # A robot player's pause before each decision, so people can follow its play.
    robot_delay_ms: int = Field(600, ge=0, le=10_000)
    # The process's heartbeat (one row, one update a second): after a crash the seat on move is charged up
    # to the last beat, so a crash gives back at most this much thinking time and never charges downtime.
    heartbeat_interval: float = Field(1.0, gt=0)
    # The cycle collector runs on the loop's timer (app.server.collector): the young generation every
    # `gc_young_ms` (no young collection scans its survivors again), everything made since the start every
    # `gc_full_interval` seconds or once the resident memory grew `gc_full_growth_mb` since the last full
    # collection (0: no growth trigger).
    # `gc_young_ms` 0: Python's own trigger with `gc_thresholds` (gen0, gen1, gen2; empty: its defaults).
    gc_young_ms: float = Field(50.0, ge=0)
    gc_full_interval: float = Field(3600.0, gt=0)
    gc_full_growth_mb: float = Field(128.0, ge=0)
    gc_thresholds: str = Field("10000,50,1000", pattern=r"^\s*$|^\d{3,7},\d{1,4},\d{1,5}$")
    # How long another thread may hold the interpreter before the event loop gets it back (Python's switch
    # interval, 5 ms by default). The store's writer, the rating pass and the database pool's threads
    # take it at every statement; at 5 ms a busy loop waited that long behind each (issue 24).
    gil_switch_ms: float = Field(0.5, gt=0, le=100)
    # `serve` writes the machine's disk backlog out before a table runs, when the database's commits wait
    # for this machine's disk (`storage.disk_backlog`), waiting at most this many seconds (0: not at all).
    start_sync_limit: float = Field(30.0, ge=0)
    # Group commit: how long the writer waits for other tables' steps to join a batch, the least time from
    # one batch's start to the next one's (under load, fewer and larger commits), and its size cap. 10 ms:
    # at 1,000 tables a tenth less CPU an ack than 5 ms for 3-4 ms more at p50 (README, "Measured").
    commit_window_ms: float = Field(2.0, ge=0)
    commit_interval_ms: float = Field(10.0, ge=0, le=1000)
    commit_max_batch: int = Field(512, ge=1)
    # How long the lobby's answers that are the same for every viewer (a room's tables, its seated players'
    # ratings) are built once and shared (`http.shared_answers`); 0: built for each request. What this
    # process changes forgets them at once; the rest shows this much later at most.
    lobby_answer_ms: float = Field(1000.0, ge=0, le=10_000)
    # permessage-deflate compresses every frame again for every connection (its context is per
    # connection): off, an update encoded once costs no more per viewer than a socket write.
    ws_deflate: bool = False
    # Worker processes on this machine (`python -m app serve --workers N`), each owning a share of the
    # tables (app.server.cluster.ownership); 1: one process runs every table, as without workers.
    workers: int = Field(1, ge=1, le=64)
    # Set by the supervisor for each worker: its slot (0..N-1) and its own port (public port + 1 + slot
    # unless `worker_port_base` is set), where the other workers forward to it and clients are redirected.
    worker_slot: int | None = Field(None, ge=0)
    worker_port: int | None = Field(None, ge=1, le=65535)
    worker_port_base: int = Field(0, ge=0, le=65535)
    # The host the workers reach each other on (their own ports listen there too).
    worker_host: str = "127.0.0.1"
    # A worker whose heartbeat is older than this is dead: any live worker takes its tables over. Longer
    # than a commit can wait for the database (SQLite's busy timeout is 30 s), so a slow worker is not
    # taken for a dead one; a worker restarted by the supervisor takes its slot's tables at once anyway.
    worker_lease: float = Field(30.0, gt=0)
    # The public port the browser pages come from (set by the supervisor): pages served there may open
    # sockets on the workers' own ports.
    public_port: int | None = Field(None, ge=1, le=65535)
    # With several workers: the host names the pages are served at (comma-separated). A page served at
    # one of them may open sockets on the workers' ports of that host (its content security policy names
    # them); the Host header is only matched against this list, never copied into a response header.
    public_hosts: str = Field("localhost,127.0.0.1,[::1]", pattern=r"^[A-Za-z0-9.\-\[\]:, ]*$")

    def worker_ports(self, public_port: int) -> tuple[int, ...]:
        """The workers' own ports, by slot."""
        base = self.worker_port_base or public_port + 1
        return tuple(range(base, base + self.workers))


def public_hosts(names: str) -> frozenset[str]:
    return frozenset(name.strip() for name in names.split(",") if name.strip())


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
