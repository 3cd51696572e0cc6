"""No credential reaches a log line: tickets and tokens in logged URLs (uvicorn logs every websocket's
path and query string at INFO, and every request's with the access log on) are replaced by ``…``.

With ``PREFERANS_LOG_FORMAT=json`` every line is a JSON object, with ``table`` on every line about a table.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from datetime import UTC, datetime
from typing import Any

_CREDENTIAL = re.compile(r"(?i)\b(ticket|token|access_token|password)=[^&\s\"']*")
_TABLE_TASK = re.compile(r"table-(\d+)")
_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "fastapi", "websockets.server")


def redact(text: str) -> str:
    return _CREDENTIAL.sub(lambda m: f"{m.group(1)}=…", text)


class RedactCredentials(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
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
