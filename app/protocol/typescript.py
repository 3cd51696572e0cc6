"""TypeScript declarations of the protocol, made from its JSON Schema (``python -m app.protocol typescript``).

The browser's modules are plain JavaScript whose JSDoc the CI type-checks with ``tsc``; they import the
frame types from ``app/web/static/js/protocol.d.ts``, which is this module's output checked in (a test
compares the two, so a protocol change that is not regenerated fails CI). The schema is the only source:
every message of ``client`` and ``server`` becomes an interface, every ``$defs`` entry a named type
(an object an interface, an ``enum`` a union of string literals, as an ``ErrorCode`` enum would be), and
``error_codes`` the union ``DocumentedErrorCode``.

Only the JSON Schema that pydantic writes is understood (``type``, ``const``, ``enum``, ``anyOf``,
``oneOf``, ``allOf``, ``items``, ``properties``, ``required``, ``additionalProperties``, ``$ref`` into
``$defs``); anything else raises `SchemaNotSupported` rather than being typed as ``unknown`` unseen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

HEADER: Final = (
    "// The table protocol's frame types, made from its JSON Schema by `python -m app.protocol typescript`\n"
    "// (app/protocol/typescript.py). Do not edit: change the pydantic models, then regenerate.\n"
)

# What a property's or a definition's schema may carry besides its type: read by no type.
_ANNOTATIONS: Final = frozenset(
    {"title", "description", "default", "examples", "minimum", "maximum", "exclusiveMinimum",
     "exclusiveMaximum", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems",
     "multipleOf", "deprecated", "readOnly", "writeOnly", "discriminator"}
)  # fmt: skip
_SCALARS: Final = {
    "string": "string",
    "integer": "number",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
}
_IDENTIFIER: Final = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_REF: Final = re.compile(r"^#/\$defs/([A-Za-z_][A-Za-z0-9_]*)$")


class SchemaNotSupported(ValueError):
    """A part of the schema this generator does not turn into a type (its place is named)."""


def typescript(schema: Mapping[str, Any]) -> str:
    """The ``.d.ts`` text for the protocol schema of `app.protocol.schema`."""
    known = {"title", "client", "server", "error_codes"}
    unknown = sorted(set(schema) - known)
    if unknown:
        raise SchemaNotSupported(f"top-level keys {unknown} of the protocol schema have no TypeScript form")
    definitions: dict[str, Mapping[str, Any]] = {}
    places: dict[str, str] = {}  # where each declaration comes from, for the errors
    messages: dict[str, dict[str, Mapping[str, Any]]] = {}
    for side in ("client", "server"):
        messages[side] = dict(sorted(schema.get(side, {}).items()))
        for name, message in messages[side].items():
            for defined in _collect_definitions(message, f"{side}.{name}", definitions):
                places.setdefault(defined, f"{side}.{name}.$defs.{defined}")
            if name in definitions:
                raise SchemaNotSupported(f"{side}.{name}: a message and a definition share the name")
            definitions[name] = message
            places[name] = f"{side}.{name}"
    blocks = [_declaration(name, definitions[name], places[name]) for name in sorted(definitions)]
    for side, union in (("client", "ClientMessage"), ("server", "ServerMessage")):
        names = list(messages[side])
        blocks.append(
            f"/** Every {side} message. */\nexport type {union} = {_union(names) if names else 'never'};\n"
        )
    codes = schema.get("error_codes")
    if codes is not None:
        doc = "The error codes the protocol documents (`error_codes`):\n" + "\n".join(
            f"- `{code}`: {meaning}" for code, meaning in sorted(codes.items())
        )
        literals = _union([json.dumps(code) for code in sorted(codes)]) if codes else "never"
        blocks.append(f"{_doc(doc, '')}export type DocumentedErrorCode = {literals};\n")
    return HEADER + "\n" + "\n".join(blocks)


def _collect_definitions(
    schema: Mapping[str, Any], where: str, into: dict[str, Mapping[str, Any]]
) -> list[str]:
    """Every message carries its own copy of the definitions it uses: one shared name, one shape."""
    for name, definition in schema.get("$defs", {}).items():
        if name in into and into[name] != definition:
            raise SchemaNotSupported(f"{where}: $defs.{name} differs from another message's {name}")
        into[name] = definition
    return list(schema.get("$defs", {}))


def _declaration(name: str, schema: Mapping[str, Any], where: str) -> str:
    doc = _doc(schema.get("description"), "")
    if _is_interface(schema):
        return f"{doc}export interface {name} {_object(schema, where, '')}\n"
    return f"{doc}export type {name} = {_type(schema, where, '')};\n"


def _is_interface(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "object" and "properties" in schema


def _type(schema: Mapping[str, Any], where: str, indent: str) -> str:
    """The TypeScript type of one schema (a property's, an item's, a definition's)."""
    keys = set(schema) - _ANNOTATIONS - {"$defs"}
    if "$ref" in schema:
        match = _REF.match(str(schema["$ref"]))
        if match is None:
            raise SchemaNotSupported(f"{where}: $ref {schema['$ref']!r} is not a local definition")
        return match.group(1)
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        values = schema["enum"]
        return _union([json.dumps(value) for value in values]) if values else "never"
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            parts = [
                _type(part, f"{where}.{combinator}[{i}]", indent) for i, part in enumerate(schema[combinator])
            ]
            return _union(parts)
    if "allOf" in schema:
        parts = [_type(part, f"{where}.allOf[{i}]", indent) for i, part in enumerate(schema["allOf"])]
        return " & ".join(_grouped(part) for part in _unique(parts))
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([_type({**schema, "type": one}, where, indent) for one in kind])
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array":
        items = schema.get("items")
        return f"{_grouped(_type(items, f'{where}[]', indent))}[]" if items is not None else "unknown[]"
    if kind == "object":
        if "properties" in schema:
            return _object(schema, where, indent)
        extra = schema.get("additionalProperties", True)
        if extra is True:
            return "Record<string, unknown>"
        if extra is False:
            return "Record<string, never>"
        return f"Record<string, {_type(extra, f'{where}.*', indent)}>"
    if not keys:
        return "unknown"  # an empty schema: any JSON value
    raise SchemaNotSupported(f"{where}: no TypeScript type for the schema keys {sorted(keys)}")


def _object(schema: Mapping[str, Any], where: str, indent: str) -> str:
    """An object with named properties; one not in ``required`` is optional (``?``)."""
    required = set(schema.get("required", ()))
    inner = indent + "  "
    lines = ["{"]
    for name, prop in sorted(schema["properties"].items()):
        key = name if _IDENTIFIER.match(name) else json.dumps(name)
        optional = "" if name in required else "?"
        type_ = _type(prop, f"{where}.{name}", inner)
        lines.append(f"{_doc(prop.get('description'), inner)}{inner}{key}{optional}: {type_};")
    if schema.get("additionalProperties", True) not in (True, False):
        raise SchemaNotSupported(f"{where}: named properties beside a schema for the others")
    lines.append(f"{indent}}}")
    return "\n".join(lines)


def _union(parts: list[str]) -> str:
    return " | ".join(_unique(parts))


def _unique(parts: list[str]) -> list[str]:
    return list(dict.fromkeys(parts))


def _grouped(type_: str) -> str:
    """Parenthesised when an operator binds it looser than ``[]`` or ``&`` would."""
    depth = 0
    for char in type_:
        if char in "{([<":
            depth += 1
        elif char in "})]>":
            depth -= 1
        elif depth == 0 and char in "|&":
            return f"({type_})"
    return type_


def _doc(text: object, indent: str) -> str:
    if not isinstance(text, str) or not text.strip():
        return ""
    lines = text.replace("*/", "*\\/").strip().splitlines()
    if len(lines) == 1:
        return f"{indent}/** {lines[0]} */\n"
    body = "".join(f"{indent} *{' ' + line if line.strip() else ''}\n" for line in lines)
    return f"{indent}/**\n{body}{indent} */\n"
