"""The API reference a person reads (`/docs/api`), flattened from the OpenAPI document:
every call, then every named schema with its fields (what an answer carries).

The document (`openapi.document`) is the one source: the page only lays it out, so
what it says cannot drift from what generated clients and the validators read.
"""

from __future__ import annotations

METHODS = ("get", "post", "put", "patch", "delete")


def _resolve(doc: dict, schema: dict) -> dict:
    """`schema`, or the component its `$ref` names."""
    ref = schema.get("$ref")
    if ref is None:
        return schema
    return doc["components"]["schemas"][ref.rsplit("/", 1)[-1]]


def _kind(doc: dict, schema: dict) -> str:
    """A short name for a schema's type: a component's name, or its JSON type."""
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    choices = schema.get("oneOf") or schema.get("anyOf")
    if choices:
        return " or ".join(dict.fromkeys(_kind(doc, choice) for choice in choices))
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array" and "items" in schema:
        return f"list of {_kind(doc, schema['items'])}"
    return str(kind)


def _properties(doc: dict, schema: dict) -> list[dict]:
    """An object schema's fields: name, type, whether required, words."""
    required = set(schema.get("required", []))
    return [
        {
            "name": name,
            "kind": _kind(doc, prop),
            "required": name in required,
            "description": prop.get("description") or _resolve(doc, prop).get("description", ""),
        }
        for name, prop in schema.get("properties", {}).items()
    ]


def _fields(doc: dict, body: dict | None) -> tuple[str | None, list[dict]]:
    """A request body's media type and its top-level fields."""
    if not body:
        return None, []
    media, content = next(iter(body["content"].items()))
    return media, _properties(doc, _resolve(doc, content.get("schema", {})))


def _answer_schema(answer: dict) -> str | None:
    """The name of the component a JSON answer is, if it is one."""
    schema = answer.get("content", {}).get("application/json", {}).get("schema", {})
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[-1] if ref else None


def schemas(doc: dict) -> list[dict]:
    """Every named schema in the document's order: its words, and its fields or values."""
    return [
        {
            "name": name,
            "description": schema.get("description", ""),
            "values": schema.get("enum"),
            "fields": _properties(doc, schema),
        }
        for name, schema in doc["components"]["schemas"].items()
    ]


def operations(doc: dict) -> list[dict]:
    """Every operation of the document in its order: method, path, words, inputs, answers."""
    found = []
    for path, item in doc["paths"].items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            media, fields = _fields(doc, op.get("requestBody"))
            found.append(
                {
                    "id": op.get("operationId") or f"{method}-{path}",
                    "method": method.upper(),
                    "path": doc["servers"][0]["url"] + path,
                    "summary": op.get("summary", ""),
                    "description": op.get("description", ""),
                    "token": bool(op.get("security")),
                    "parameters": [
                        {
                            "name": p["name"],
                            "in": p["in"],
                            "required": bool(p.get("required")),
                            "kind": _kind(doc, p.get("schema", {})),
                            "description": p.get("description", ""),
                        }
                        for p in op.get("parameters", [])
                    ],
                    "media": media,
                    "fields": fields,
                    "responses": [
                        {
                            "code": code,
                            "description": answer.get("description", ""),
                            "schema": _answer_schema(answer),
                        }
                        for code, answer in op.get("responses", {}).items()
                    ],
                }
            )
    return found
