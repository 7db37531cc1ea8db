"""Reading a JSON request body against its schema's field names.

The names come from the request's schema in the OpenAPI document (schemas.py), so
what a call accepts and what the document says it accepts cannot drift apart. A
misnamed field (`bot_id` for `version_id`) is answered with both halves of the
mistake: which field is missing and which sent one is not a field of the call.
"""

from __future__ import annotations

from functools import cache

from flask import request

from ladder.errors import ServiceError
from ladder.models import MAX_ID
from ladder.web.api.schemas import components


@cache
def fields(schema: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The request schema's (required, optional) field names, in the document's order."""
    found = components([], MAX_ID)[schema]
    required = tuple(found["required"])
    return required, tuple(name for name in found["properties"] if name not in required)


def _names(names) -> str:
    return ", ".join(names)


def json_body(schema: str) -> dict:
    """The request's JSON object, once it has every required field and no other.

    Refused (400) when it is not an object, or names a field the call does not take,
    or lacks a required one; the error's `field` names the first missing field (what
    the caller must send), else the first unknown one.
    """
    required, optional = fields(schema)
    accepted = (*required, *optional)
    shape = f"fields {_names(required)}" + (f", optionally {_names(optional)}" if optional else "")
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise ServiceError(f"send a JSON object with the {shape}")
    unknown = [name for name in body if name not in accepted]
    missing = [name for name in required if name not in body]
    if not unknown and not missing:
        return body
    words = []
    if missing:
        words.append(f"{_names(missing)} {'is' if len(missing) == 1 else 'are'} missing")
    if unknown:
        listed = _names(str(name)[:40] for name in unknown[:5])
        words.append(f"{listed} {'is not a field' if len(unknown) == 1 else 'are not fields'}")
    raise ServiceError(
        f"{'; '.join(words)} of this call (it takes the {shape})",
        field=str((missing or unknown)[0])[:40],
    )
