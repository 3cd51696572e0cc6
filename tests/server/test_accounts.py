"""Accounts, tokens, roles and the protocol's message parsing, without a running server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.auth.passwords import hash_password, verify_password
from app.auth.roles import Role
from app.auth.tokens import TokenError, issue_token, verify_token
from app.protocol.messages import ActionMessage, ProtocolError, parse_client_message
from tests.server.conftest import ROOT, ServerProcess


def test_passwords_are_argon2_hashed_and_verified() -> None:
    hashed = hash_password("correct horse")
    assert hashed.startswith("$argon2id$")
    assert verify_password(hashed, "correct horse")
    assert not verify_password(hashed, "wrong horse")
    assert not verify_password("not a hash", "correct horse")


def test_tokens_are_signed_and_expire() -> None:
    token, expires = issue_token("secret", 7, now=1000.0, ttl=60)
    assert expires == 1060.0
    assert verify_token("secret", token, now=1059.0).user_id == 7
    with pytest.raises(TokenError, match="expired"):
        verify_token("secret", token, now=1060.0)
    with pytest.raises(TokenError, match="signature"):
        verify_token("other secret", token, now=1000.0)
    payload, signature = token.split(".")
    forged_payload = payload[:-2] + ("AA" if payload[-2:] != "AA" else "BB")
    with pytest.raises(TokenError):
        verify_token("secret", f"{forged_payload}.{signature}", now=1000.0)
    with pytest.raises(TokenError, match="malformed"):
        verify_token("secret", "no-dot", now=1000.0)


def test_roles_include_the_rights_of_lower_roles() -> None:
    assert Role.ADMIN.allows(Role.OPERATOR) and Role.ADMIN.allows(Role.PLAYER)
    assert Role.OPERATOR.allows(Role.PLAYER) and not Role.OPERATOR.allows(Role.ADMIN)
    assert not Role.PLAYER.allows(Role.OPERATOR)


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{", "bad_json"),
        ("3", "bad_json"),
        ('{"type": "hello"}', "unknown_type"),
        ('{"no_type": 1}', "unknown_type"),
        ('{"type": "action", "seq": 0, "action": {}}', "invalid_message"),
        ('{"type": "action", "seq": 1}', "invalid_message"),
        ('{"type": "action", "seq": 1, "action": {}, "extra": 1}', "invalid_message"),
        ('{"type": "action", "seq": "1", "action": []}', "invalid_message"),
    ],
)
def test_malformed_client_frames_get_typed_errors(frame: str, code: str) -> None:
    with pytest.raises(ProtocolError) as raised:
        parse_client_message(frame)
    assert raised.value.code == code


def test_well_formed_action_frame_parses() -> None:
    message = parse_client_message('{"type": "action", "seq": 3, "action": {"type": "pass"}}')
    assert isinstance(message, ActionMessage) and message.seq == 3


def test_protocol_schema_lists_every_message() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "app.protocol", "schema"], capture_output=True, text=True, check=True, cwd=ROOT
    )
    schema = json.loads(out.stdout)
    assert set(schema["client"]) == {"ActionMessage", "ResyncMessage", "PingMessage"}
    assert {"SnapshotMessage", "UpdateMessage", "AckMessage", "ErrorMessage", "PresenceMessage"} <= set(
        schema["server"]
    )
    assert "stale_seq" in schema["error_codes"]


def test_users_add_cli_creates_a_user_with_a_role_from_stdin_password(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    done = server.cli("users", "add", "alice", "--role", "operator", stdin="s3cret-pw\n")
    assert done.returncode == 0, done.stderr
    again = server.cli("users", "add", "alice", "--role", "admin", stdin="s3cret-pw\n")
    assert again.returncode == 1 and "already taken" in again.stderr
    bad = server.cli("users", "add", "bob", "--role", "emperor", stdin="pw\n")
    assert bad.returncode != 0
