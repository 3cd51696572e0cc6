"""Events an action produced, each tagged with who may see it (RULES.md §12)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    data: dict[str, Any]
    visible_to: frozenset[int] | None = None  # None: public to every seat and spectator

    def visible(self, viewer: int | None) -> bool:
        return self.visible_to is None or (viewer is not None and viewer in self.visible_to)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.data}


def public(kind: str, **data: Any) -> Event:
    return Event(kind, data, None)


def private(kind: str, seats: frozenset[int] | set[int] | tuple[int, ...], **data: Any) -> Event:
    return Event(kind, data, frozenset(seats))
