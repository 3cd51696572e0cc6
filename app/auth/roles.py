"""Roles. Each role includes the rights of the ones below it: admin ⊃ operator ⊃ player."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    PLAYER = "player"  # plays and spectates
    OPERATOR = "operator"  # also hosts rooms and opens tables
    ADMIN = "admin"  # also reviews the archive and adjudicates interrupted deals

    @property
    def level(self) -> int:
        return _LEVEL[self]

    def allows(self, required: Role) -> bool:
        return self.level >= required.level


_LEVEL = {Role.PLAYER: 0, Role.OPERATOR: 1, Role.ADMIN: 2}
