"""Expiring signed tokens: ``base64url(json payload) . base64url(HMAC-SHA256)``.

The payload names the user id and the expiry; the role is read from the database on every use, so a
role change takes effect at once.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass


class TokenError(Exception):
    """A token that is malformed, badly signed or expired."""


@dataclass(frozen=True, slots=True)
class TokenClaims:
    user_id: int
    expires_at: float


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def issue_token(secret: str, user_id: int, now: float, ttl: float) -> tuple[str, float]:
    expires_at = now + ttl
    payload = _b64(json.dumps({"sub": user_id, "exp": expires_at}, separators=(",", ":")).encode())
    signature = _b64(hmac.new(secret.encode(), payload.encode(), hashlib.sha256).digest())
    return f"{payload}.{signature}", expires_at


def verify_token(secret: str, token: str, now: float) -> TokenClaims:
    try:
        payload, signature = token.split(".")
    except ValueError:
        raise TokenError("malformed token") from None
    expected = _b64(hmac.new(secret.encode(), payload.encode(), hashlib.sha256).digest())
    if not hmac.compare_digest(expected, signature):
        raise TokenError("bad token signature")
    try:
        data = json.loads(_unb64(payload))
        claims = TokenClaims(user_id=int(data["sub"]), expires_at=float(data["exp"]))
    except (ValueError, KeyError, TypeError):
        raise TokenError("malformed token") from None
    if claims.expires_at <= now:
        raise TokenError("token expired")
    return claims
