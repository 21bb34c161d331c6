"""Arguments against a tool's input schema: the JSON Schema subset schema.py uses, checked.

type (with null), enum, minLength/maxLength, minimum/maximum, items, minItems,
uniqueItems, required and additionalProperties false — what the five input
schemas say, no more. The server answers a call that breaks its schema with a
tool error naming the argument, before the engine sees it; interpreting the
listed schema itself keeps the two from disagreeing. Stdlib only.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def check(schema: Schema, value: Any, where: str = "") -> str | None:
    """The first way `value` breaks `schema` (the subset above), as one line; None if it fits."""
    name = where or "arguments"
    want = schema.get("type")
    if want is not None:
        kinds = [want] if isinstance(want, str) else list(want)
        ok = any(
            (k == "null" and value is None)
            or (
                k in _TYPES
                and isinstance(value, _TYPES[k])
                and not (isinstance(value, bool) and k in ("integer", "number"))
            )
            for k in kinds
        )
        if not ok:
            return f"{name}: expected {' or '.join(kinds)}, got {_json_type(value)}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{name}: {value!r} is not one of {', '.join(map(str, schema['enum']))}"
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            return f"{name}: must not be empty" if not value else f"{name}: too short"
        if len(value) > schema.get("maxLength", len(value)):
            return f"{name}: longer than {schema['maxLength']} characters"
    if isinstance(value, int) and not isinstance(value, bool):
        if value < schema.get("minimum", value):
            return f"{name}: must be at least {schema['minimum']}"
        if value > schema.get("maximum", value):
            return f"{name}: must be at most {schema['maximum']}"
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return f"{name}: needs at least {schema['minItems']} item(s)"
        if schema.get("uniqueItems") and len({repr(v) for v in value}) != len(value):
            return f"{name}: repeats an item"
        for i, item in enumerate(value):
            bad = check(schema.get("items", {}), item, f"{name}[{i}]")
            if bad:
                return bad
    if isinstance(value, dict):
        props: dict[str, Schema] = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                return f"{key}: required"
        if schema.get("additionalProperties") is False:
            extra = sorted(set(value) - set(props))
            if extra:
                return f"{extra[0]}: unknown argument (known: {', '.join(props) or 'none'})"
        for key, sub in props.items():
            if key in value:
                bad = check(sub, value[key], key if not where else f"{where}.{key}")
                if bad:
                    return bad
    return None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    for name, types in _TYPES.items():
        if isinstance(value, types) and not (isinstance(value, bool) and name != "boolean"):
            return name
    return type(value).__name__
