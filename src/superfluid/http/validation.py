"""Request-body validation that reports failures as typed errors naming the offending field."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

import jsonschema
from connexion.validators import JSONRequestBodyValidator
from starlette.types import Scope

from superfluid.errors import InvalidRequest


def _field_path(error: jsonschema.ValidationError) -> str | None:
    path = [str(p) for p in error.absolute_path]
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [name for name in error.validator_value if name not in error.instance]
        if missing:
            path.append(str(missing[0]))
    if not path:
        return None
    out = path[0]
    for part in path[1:]:
        out += f"[{part}]" if part.isdigit() else f".{part}"
    return out


def _deepest(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """For oneOf/anyOf failures, the branch error that got furthest into the instance."""
    best = error
    for sub in error.context or ():
        candidate = _deepest(sub)
        if len(candidate.absolute_path) > len(best.absolute_path):
            best = candidate
    return best


def _null_alternatives(node: Any) -> Any:
    """Make ``nullable: true`` beside oneOf/anyOf admit null (Connexion honours it only beside type/enum)."""
    if isinstance(node, list):
        return [_null_alternatives(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _null_alternatives(value) for key, value in node.items()}
    if out.get("nullable") and ("oneOf" in out or "anyOf" in out) and "type" not in out:
        out.pop("nullable")
        return {"anyOf": [out, {"enum": [None]}]}
    return out


class TypedJSONBodyValidator(JSONRequestBodyValidator):  # type: ignore[misc]
    """Connexion's JSON validator, raising :class:`InvalidRequest` with ``param`` set."""

    def __init__(self, *, schema: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(schema=_null_alternatives(schema), **kwargs)

    async def _parse(self, stream: AsyncGenerator[bytes, None], scope: Scope) -> Any:
        raw = b"".join([chunk async for chunk in stream])
        if not raw.strip():
            return None
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InvalidRequest(f"malformed JSON body: {exc}") from exc

    def _validate(self, body: Any) -> dict[str, Any] | None:
        if body is None:
            raise InvalidRequest("request body must be a JSON object")
        if not isinstance(body, dict):
            raise InvalidRequest("request body must be a JSON object")
        errors = sorted(self._validator.iter_errors(body), key=lambda e: len(list(e.absolute_path)))
        if not errors:
            return None
        first = _deepest(errors[0])
        param = _field_path(first) or _field_path(errors[0])
        where = f" ({param})" if param else ""
        if first.validator == "required" and param:
            message = f"missing required field '{param}'"
        else:
            message = f"invalid value{where}: {first.message}"
        raise InvalidRequest(message, param=param)
