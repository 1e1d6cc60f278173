"""What a person (or an agent's own elicitation callback) answers: content that fits the schema.

The same rule is written in the TypeScript and Rust agents (`agents/answers.mjs`,
`rmcp-peer/src/answers.rs`): the schema's default where there is one, otherwise the first valid
value of the field's kind. Every field is answered, so the content the server receives is the
content the answerer sent, whoever answered.
"""

from __future__ import annotations

from typing import Any

FORMAT_SAMPLES = {
    "email": "person@example.com",
    "uri": "https://example.com/compat",
    "date": "2026-12-01",
    "date-time": "2026-12-01T10:00:00Z",
}

# What an agent's own sampling and roots callbacks answer, so a result can show they were relayed.
SAMPLING_REPLY = "compat-sampled-reply"
ROOT_URI = "file:///compat/root"


def fill_field(prop: dict[str, Any]) -> Any:
    if "default" in prop:
        return prop["default"]
    kind = prop.get("type")
    if kind == "string":
        if prop.get("enum"):
            return prop["enum"][0]
        if prop.get("oneOf"):
            return prop["oneOf"][0]["const"]
        text = FORMAT_SAMPLES.get(prop.get("format", ""), "compat")
        text = text.ljust(int(prop.get("minLength", 0)), "x")
        return text[: int(prop["maxLength"])] if "maxLength" in prop else text
    if kind in ("number", "integer"):
        value = prop.get("minimum", prop.get("maximum", 1) if prop.get("maximum", 1) < 1 else 1)
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return True
    if kind == "array":
        items = prop.get("items", {})
        options = items.get("enum") or [choice["const"] for choice in items.get("anyOf", [])]
        return options[: max(int(prop.get("minItems", 1)), 1)]
    return None


def fill(schema: dict[str, Any] | None) -> dict[str, Any]:
    """Content for an accepted form: every property answered."""
    properties = (schema or {}).get("properties", {})
    return {name: fill_field(prop) for name, prop in properties.items()}
