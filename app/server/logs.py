"""No credential reaches a log line: tickets and tokens in logged URLs (uvicorn logs every websocket's
path and query string at INFO, and every request's with the access log on) are replaced by ``…``, in the
query string and in the path (an invite link's token). A record's arguments are redacted one by one, so
its format stays whole (uvicorn's access formatter unpacks them: a record left without its arguments was a
"--- Logging error ---" and a lost access line).

With ``PREFERANS_LOG_FORMAT=json`` every line is a JSON object, with ``table`` on every line about a table.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

_CREDENTIAL = re.compile(r"(?i)\b(ticket|token|access_token|password)=[^&\s\"']*")
# Paths that carry a credential: an invite link's token (`POST /api/invites/{token}`).
_PATH_CREDENTIAL = re.compile(r"(?i)(/invites/)[^/?#\s\"']+")
_TABLE_TASK = re.compile(r"table-(\d+)")
_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "fastapi", "websockets.server")


def redact(text: str) -> str:
    text = _CREDENTIAL.sub(lambda m: f"{m.group(1)}=…", text)
    return _PATH_CREDENTIAL.sub(lambda m: f"{m.group(1)}…", text)


def _redacted(value: object) -> object:
    """An argument of a record without its credentials, of the same type where it had none."""
    if isinstance(value, str):
        return redact(value)
    if value is None or isinstance(value, int | float):
        return value
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    cleaned = redact(text)
    return value if cleaned == text else cleaned


class RedactCredentials(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(_redacted(arg) for arg in args)
        elif isinstance(args, Mapping):
            record.args = {key: _redacted(value) for key, value in args.items()}
        try:
            message = record.getMessage()
        except Exception:  # a record that cannot be formatted is the handler's to report, as it was
            return True
        cleaned = redact(message)
        if cleaned != message:  # the credential is in the format itself: the line is kept, formatted
            record.msg, record.args = cleaned, ()
        return True


def redact_credentials_in_server_logs() -> None:
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactCredentials) for f in logger.filters):
            logger.addFilter(RedactCredentials())


def _table_of_current_task() -> int | None:
    """A table actor's tasks are named ``table-<id>`` (and ``table-<id>-…``): their lines name the table."""
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return None
    if task is None:
        return None
    match = _TABLE_TASK.match(task.get_name())
    return int(match.group(1)) if match else None


class TableId(logging.Filter):
    """Adds ``table`` (an int, or None) to every record: the table whose actor logged it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "table", None) is None:
            record.table = _table_of_current_task()
        return True


class JsonLines(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the table when about one, the traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": redact(record.getMessage()),
        }
        table = getattr(record, "table", None)
        if table is not None:
            line["table"] = table
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def configure_json_logging(level: str) -> None:
    """Every logger (uvicorn's too) writes JSON lines to stderr; uvicorn must then get ``log_config=None``."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLines())
    handler.addFilter(TableId())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
