"""Expiring signed tokens: ``base64url(json payload) . base64url(HMAC-SHA256)``.

The payload names the user id, the expiry and the user's token generation when it was issued; the role,
the generation and the ``disabled`` flag are read from the database on every use, so a role change, a
logout or a disabled account takes effect at once.
"""

from __future__ import annotations

import base64
import binascii
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
    generation: int


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sign(secret: str, payload: str) -> bytes:
    return _b64(
        hmac.new(secret.encode(), payload.encode("utf-8", "replace"), hashlib.sha256).digest()
    ).encode("ascii")


def issue_token(secret: str, user_id: int, now: float, ttl: float, generation: int = 0) -> tuple[str, float]:
    expires_at = now + ttl
    claims = {"sub": user_id, "exp": expires_at, "gen": generation}
    payload = _b64(json.dumps(claims, separators=(",", ":")).encode())
    return f"{payload}.{_sign(secret, payload).decode('ascii')}", expires_at


def verify_token(secret: str, token: str, now: float, max_ttl: float | None = None) -> TokenClaims:
    """``max_ttl``: a token claiming to live longer than this from now is refused (a bounded expiry)."""
    try:
        payload, signature = token.split(".")
    except ValueError:
        raise TokenError("malformed token") from None
    # Bytes, not str: compare_digest refuses non-ASCII text with a TypeError.
    if not hmac.compare_digest(_sign(secret, payload), signature.encode("utf-8", "replace")):
        raise TokenError("bad token signature")
    try:
        data = json.loads(_unb64(payload))
        claims = TokenClaims(
            user_id=int(data["sub"]), expires_at=float(data["exp"]), generation=int(data.get("gen", 0))
        )
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise TokenError("malformed token") from None
    if not claims.expires_at > now:  # NaN is expired too
        raise TokenError("token expired")
    if max_ttl is not None and claims.expires_at > now + max_ttl:
        raise TokenError("token lifetime out of bounds")
    return claims
