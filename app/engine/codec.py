"""JSON round trip of the engine's state values, driven by their type annotations."""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import Enum
from functools import cache
from typing import Any, Union

from app.engine.bids import Bid
from app.engine.cards import Card
from app.engine.conventions import Conventions
from app.engine.result import DealResult


def encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Card | Bid):
        return value.text
    if isinstance(value, DealResult):
        return value.to_json()
    if isinstance(value, Conventions):
        return value.model_dump(mode="json")
    if isinstance(value, frozenset):
        return sorted(encode(v) for v in value)
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    raise TypeError(f"cannot encode {type(value).__name__}")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def decode(kind: Any, data: Any) -> Any:
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if origin in (Union, types.UnionType):
        if data is None:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return decode(inner, data)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], v) for v in data)
        return tuple(decode(a, v) for a, v in zip(args, data, strict=True))
    if origin is frozenset:
        return frozenset(decode(args[0], v) for v in data)
    if origin is dict:
        return {decode(args[0], k): decode(args[1], v) for k, v in data.items()}
    if kind is Card:
        return Card.parse(data)
    if kind is Bid:
        return Bid.parse(data)
    if kind is DealResult:
        return DealResult.from_json(data)
    if kind is Conventions:
        return Conventions.model_validate(data)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind(data)
    if kind in (int, str, bool, float):
        return kind(data)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = _hints(kind)
        return kind(**{f.name: decode(hints[f.name], data[f.name]) for f in dataclasses.fields(kind)})
    raise TypeError(f"cannot decode {kind!r}")
