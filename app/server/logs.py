"""No credential reaches a log line: tickets and tokens in logged URLs (uvicorn logs every websocket's
path and query string at INFO, and every request's with the access log on) are replaced by ``…``."""

from __future__ import annotations

import logging
import re

_CREDENTIAL = re.compile(r"(?i)\b(ticket|token|access_token|password)=[^&\s\"']*")
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
