"""The browser's frame types are made from the protocol's JSON Schema (docs/web.md: `python -m
app.protocol typescript`), never written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.protocol import schema
from app.protocol.typescript import HEADER, SchemaNotSupported, typescript

CHECKED_IN = Path(__file__).resolve().parents[2] / "app" / "web" / "static" / "js" / "protocol.d.ts"


def test_the_checked_in_declarations_are_the_generators_output_for_todays_protocol() -> None:
    """A protocol change without `python -m app.protocol typescript > app/web/static/js/protocol.d.ts`
    fails here, before the browser reads frames of a shape its types no longer describe."""
    assert CHECKED_IN.read_text(encoding="utf-8") == typescript(schema())


def test_seat_info_carries_the_robot_level_the_server_sends() -> None:
    assert "robot?: string | null;" in typescript(schema()).split("export interface SeatInfo", 1)[1]


SMALL = {
    "title": "a small protocol",
    "client": {},
    "server": {
        "HelloMessage": {
            "$defs": {
                "Colour": {"enum": ["red", "black"], "title": "Colour", "type": "string"},
                "Card": {
                    "description": "One card.",
                    "properties": {"rank": {"type": "integer"}, "colour": {"$ref": "#/$defs/Colour"}},
                    "required": ["rank", "colour"],
                    "type": "object",
                },
            },
            "description": "Says hello.\nTwo lines.",
            "properties": {
                "type": {"const": "hello", "default": "hello", "type": "string"},
                "name": {"type": "string", "description": "who"},
                "nick": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                "cards": {"items": {"$ref": "#/$defs/Card"}, "type": "array"},
                "lead": {"anyOf": [{"$ref": "#/$defs/Card"}, {"type": "null"}]},
                "seen": {"items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}, "type": "array"},
                "extra": {"additionalProperties": True, "type": "object"},
                "scores": {"additionalProperties": {"type": "number"}, "type": "object"},
                "place": {
                    "properties": {"x": {"type": "integer"}, "y": {"type": ["integer", "null"]}},
                    "required": ["x"],
                    "type": "object",
                },
            },
            "required": ["name", "cards", "lead", "seen", "extra", "scores", "place"],
            "type": "object",
        }
    },
    "error_codes": {"b_code": "second", "a_code": "first"},
}


def test_the_generator_turns_each_kind_of_schema_into_its_typescript_type() -> None:
    """Enums become unions of string literals, fields outside ``required`` optional, ``null`` in an
    ``anyOf`` a nullable type, arrays `T[]` (parenthesised unions), nested objects inline, ``$ref`` the
    named definition, and every description a JSDoc comment."""
    out = typescript(SMALL)
    assert out.startswith(HEADER)
    assert 'export type Colour = "red" | "black";\n' in out
    assert "/** One card. */\nexport interface Card {\n  colour: Colour;\n  rank: number;\n}\n" in out
    hello = out.split("export interface HelloMessage {\n", 1)[1].split("\n}\n", 1)[0]
    assert hello.splitlines() == [
        "  cards: Card[];",
        "  extra: Record<string, unknown>;",
        "  lead: Card | null;",
        "  /** who */",
        "  name: string;",
        "  nick?: string | null;",
        "  place: {",
        "    x: number;",
        "    y?: number | null;",
        "  };",
        "  scores: Record<string, number>;",
        "  seen: (number | null)[];",
        '  type?: "hello";',
    ]
    assert "/**\n * Says hello.\n * Two lines.\n */\nexport interface HelloMessage {" in out
    assert "export type ClientMessage = never;" in out
    assert "export type ServerMessage = HelloMessage;" in out
    assert 'export type DocumentedErrorCode = "a_code" | "b_code";' in out
    assert " * - `a_code`: first\n * - `b_code`: second\n" in out


def test_the_same_definition_in_two_messages_is_declared_once_and_a_conflict_is_refused() -> None:
    card = SMALL["server"]["HelloMessage"]["$defs"]["Card"]  # type: ignore[index]
    twice = {"server": {"A": _message_using(card), "B": _message_using(card)}}
    assert typescript(twice).count("export interface Card {") == 1
    other = {**card, "required": ["rank"]}
    with pytest.raises(SchemaNotSupported, match=r"B: \$defs.Card differs"):
        typescript({"server": {"A": _message_using(card), "B": _message_using(other)}})


@pytest.mark.parametrize(
    ("part", "message"),
    [
        ({"$ref": "other.json#/Card"}, r"\$ref 'other.json#/Card' is not a local definition"),
        ({"not": {"type": "string"}}, r"no TypeScript type for the schema keys \['not'\]"),
    ],
)
def test_a_schema_the_generator_cannot_type_is_refused_with_its_place(part: object, message: str) -> None:
    schema_ = {"server": {"M": {"properties": {"f": part}, "required": ["f"], "type": "object"}}}
    with pytest.raises(SchemaNotSupported, match=rf"server.M.f: {message}"):
        typescript(schema_)


def test_an_unknown_top_level_key_is_refused_rather_than_left_out() -> None:
    with pytest.raises(SchemaNotSupported, match="events"):
        typescript({"events": {}})


def _message_using(card: object) -> dict[str, object]:
    return {
        "$defs": {"Card": card},
        "properties": {"card": {"$ref": "#/$defs/Card"}},
        "required": ["card"],
        "type": "object",
    }
