"""Server configuration from the environment (pydantic-settings).

``DATABASE_URL`` selects the database: SQLite through aiosqlite by default (no set-up), PostgreSQL through
asyncpg in production. Everything else is prefixed ``PREFERANS_``.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./var/preferans.db"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PREFERANS_", extra="ignore")

    database_url: str = Field(
        DEFAULT_DATABASE_URL, validation_alias=AliasChoices("DATABASE_URL", "PREFERANS_DATABASE_URL")
    )
    # Empty: a secret is generated once and kept in the database, so tokens survive a restart.
    token_secret: str = ""
    token_ttl: float = Field(12 * 3600.0, gt=0)
    db_pool_size: int = Field(16, ge=1)
    db_max_overflow: int = Field(16, ge=0)
    # A text frame above this many bytes gets a typed error; the transport closes far larger ones (1009).
    max_frame_bytes: int = Field(8192, ge=256)
    transport_max_bytes: int = Field(65536, ge=1024)
    max_request_bytes: int = Field(65536, ge=1024)
    # Token bucket per websocket connection.
    rate_per_second: float = Field(50.0, gt=0)
    rate_burst: float = Field(100.0, gt=0)
    # A connection that keeps flooding past the limit this many times in a row is closed.
    rate_strikes_to_close: int = Field(200, ge=1)
    send_queue_frames: int = Field(256, ge=8)
    # The last-resort wall-time guard of one robot run (a timed-out seat's discard and the rest of the
    # deal): past it the robot's search is cancelled and the deal archived as interrupted (§8.4). The
    # robots' own limits are node counts, so the guard never changes a decision made within it; their
    # worst case on the dev machine is a few seconds (bench/solver.py, app/autoplay/robot.py).
    robot_guard_seconds: float = Field(30.0, gt=0)
    # How often a running clock is persisted, bounding what a crash can give back to the player on move.
    clock_checkpoint_interval: float = Field(1.0, gt=0)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
