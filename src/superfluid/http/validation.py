"""Request-body validation that reports failures as typed errors naming the offending field.

The server process parses a body once, here: the parsed object is kept in the request scope (``PARSED_BODY``)
for handlers that read it from there instead of parsing it again. Bodies of ``OFFLOAD_BODY_BYTES`` or more are
parsed and validated in a worker process first, and parsed in the server only once they passed
(http/offload.py). Nesting deeper than ``--max-json-depth`` is a 400, and a value quoted in an error message is
cut to a few hundred characters.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any

import jsonschema
from connexion.json_schema import Draft4RequestValidator
from connexion.validators import JSONRequestBodyValidator
from jsonschema import Draft4Validator
from starlette.datastructures import Headers
from starlette.types import Message, Receive, Scope

from superfluid.errors import InvalidRequest
from superfluid.http.dialect import shorten
from superfluid.http.fast_accept import Acceptor, acceptor
from superfluid.http.offload import offload_of

PARSED_BODY = "superfluid.body"
"""Scope key of the parsed request body (set once validation passed)."""
BIG_BODY = "superfluid.big_body"
"""Set in the scope when the body was big enough to be parsed off the loop: turning it into engine types is
then worth a worker too (handlers/context.py ``built``)."""

OFFLOAD_BODY_BYTES = 64 * 1024
"""Bodies this large or larger are parsed and validated on a worker thread (below it the hop costs more)."""

DEFAULT_MAX_DEPTH = 128
MESSAGE_VALUE_CHARS = 300
"""Longest quotation of a rejected value in an error message; longer ones keep their start and end."""


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
    return shorten(out, 120)


def _deepest(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """For oneOf/anyOf failures, the branch error that got furthest into the instance, among the branches the
    value's tag names (``_branches_named``)."""
    subs, named = _branches_named(error)
    candidates = [_deepest(sub) for sub in subs]
    best = candidates[0] if named else error  # the tag names one branch: its errors stand for the union's
    for candidate in candidates:
        if len(candidate.absolute_path) > len(best.absolute_path):
            best = candidate
    return best


TAG_VALIDATORS = ("enum", "const")


def _branches_named(error: jsonschema.ValidationError) -> tuple[list[jsonschema.ValidationError], bool]:
    """The errors of a oneOf/anyOf's branches worth reporting, and whether they are one branch's. A branch whose
    own property failed ``enum`` or ``const`` is one the value's tag rules out (an Anthropic block of type "text"
    is no image block), so where some branches are left only theirs count: a text block without its text is
    reported as that, not as "'text' is not one of ['image']". Where the tag rules out every branch, one error
    names the tag and every value allowed."""
    context = list(error.context or ())
    if error.validator not in ("oneOf", "anyOf") or not isinstance(error.instance, dict):
        return context, False
    ruled_out = [sub for sub in context if sub.validator in TAG_VALIDATORS and len(sub.relative_path) == 1]
    if not ruled_out:
        return context, False
    branches = {sub.relative_schema_path[0] for sub in ruled_out}
    kept = [sub for sub in context if sub.relative_schema_path[0] not in branches]
    if kept:
        return kept, len({sub.relative_schema_path[0] for sub in kept}) == 1
    tag = ruled_out[0].relative_path[0]
    if any(sub.relative_path[0] != tag for sub in ruled_out):
        return context, False
    allowed: list[Any] = []
    for sub in ruled_out:
        values = sub.validator_value if sub.validator == "enum" else [sub.validator_value]
        allowed += [value for value in values if value not in allowed]
    value = error.instance.get(tag)
    return [jsonschema.ValidationError(f"{value!r} is not one of {allowed!r}", validator="enum",
                                       validator_value=allowed, instance=value,
                                       path=[*error.absolute_path, tag])], False


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


LONG_TEXT = 64 * 1024
"""Strings longer than this are validated through a stand-in (:class:`LongText`)."""


class LongText(str):
    """A very long string as the validator sees it: its first LONG_TEXT characters, its true length (``len``),
    and a short ``repr``. jsonschema writes every failing value into its messages with ``repr`` while it checks
    the branches of a ``oneOf`` (a 99 MB prompt is not an array of parts): a full copy, escaped, per branch. The
    documents constrain strings by type, enum and length only; a ``pattern`` would see the cut text."""

    full_length: int

    def __new__(cls, text: str) -> LongText:
        out = super().__new__(cls, text[:LONG_TEXT])
        out.full_length = len(text)
        return out

    def __len__(self) -> int:
        return self.full_length

    def __repr__(self) -> str:
        return f"<text of {self.full_length:,} characters>"


def stand_in(value: Any) -> Any:
    """``value`` with every string over LONG_TEXT replaced by a LongText (shared parts are not copied)."""
    if isinstance(value, str):
        return LongText(value) if len(value) > LONG_TEXT else value
    if isinstance(value, list):
        items = [stand_in(v) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(value, dict):
        pairs = {k: stand_in(v) for k, v in value.items()}
        return value if all(pairs[k] is v for k, v in value.items()) else pairs
    return value


def nesting_depth_exceeds(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` deep in a parsed value (iterative: any depth)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children: Iterator[Any] = iter(node.values() if isinstance(node, dict) else node)
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def parse_body(raw: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """JSON text -> value; malformed or too deeply nested text is an InvalidRequest. None for a blank body."""
    if not raw.strip():
        return None
    too_deep = InvalidRequest(f"request body nested too deeply: arrays and objects may nest at most {max_depth} "
                              "levels (--max-json-depth)")
    try:
        body = json.loads(raw)
    except RecursionError:
        raise too_deep from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidRequest(f"malformed JSON body: {shorten(str(exc), MESSAGE_VALUE_CHARS)}") from exc
    # Only bodies with more opening brackets than the limit can be too deep: most skip the walk.
    if isinstance(body, (dict, list)) and raw.count(b"[") + raw.count(b"{") > max_depth \
            and nesting_depth_exceeds(body, max_depth):
        raise too_deep
    return body


class _SameSchema:
    """An operation's body schema, keyed by identity: Connexion hands the same dict to every request."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema  # held, so its id cannot be reused while cached

    def __hash__(self) -> int:
        return id(self.schema)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _SameSchema) and other.schema is self.schema


@functools.lru_cache(maxsize=1024)
def _prepared(key: _SameSchema) -> tuple[dict[str, Any], Any, Acceptor, str]:
    """The schema as validated (nullable alternatives made explicit), its validator, its compiled acceptor
    (http/fast_accept.py), and its JSON text (what a worker process gets), built once per operation: rewriting
    the chat schema and building a validator on every request cost the event loop about a millisecond each
    time."""
    schema = _null_alternatives(key.schema)
    return schema, _validator_of(schema), acceptor(schema), json.dumps(schema)


def _validator_of(schema: dict[str, Any]) -> Any:
    return Draft4RequestValidator(schema, format_checker=Draft4Validator.FORMAT_CHECKER)


@functools.lru_cache(maxsize=64)
def _checks_from_text(schema_text: str) -> tuple[Any, Acceptor]:
    """In a worker process: the validator and the compiled acceptor of a schema sent as text, from one parse."""
    schema = json.loads(schema_text)
    return _validator_of(schema), acceptor(schema)


def check_apart(schema_text: str, raw: bytes, max_depth: int, nullable: bool) -> tuple[str, str | None] | None:
    """In a worker process (http/offload.py): parse a big body, bound its nesting and validate it (with long
    strings cut: the validator quotes failing values); the first error as (message, param), or None. The server
    process sends the raw bytes (a copy) and parses the body itself only once this passed: a refused body never
    costs it a parse, and a walk of the whole value or a pickle of it (each a long hold of the GIL the engine
    thread needs) is done here instead."""
    try:
        body = parse_body(raw, max_depth)
    except InvalidRequest as exc:
        return exc.message, exc.param
    if body is None and nullable:
        return None
    checked = stand_in(body)
    validator, accepts = _checks_from_text(schema_text)
    if isinstance(checked, dict) and accepts(checked):
        return None
    error = body_error(validator, checked)
    return None if error is None else (error.message, error.param)


def parse_checked(raw: bytes) -> Any:
    """A body ``check_apart`` passed: well formed and not too deep, so parsed without the walk that bounds its
    nesting. None for a blank body."""
    return json.loads(raw) if raw.strip() else None


def body_error(validator: Any, body: Any) -> InvalidRequest | None:
    """The error to report for a body, naming the field of the first failure (None when the body is valid)."""
    if not isinstance(body, dict):
        return InvalidRequest("request body must be a JSON object")
    errors = sorted(validator.iter_errors(body), key=lambda e: len(list(e.absolute_path)))
    if not errors:
        return None
    first = _deepest(errors[0])
    param = _field_path(first) or _field_path(errors[0])
    where = f" ({param})" if param else ""
    if first.validator == "required" and param:
        message = f"missing required field '{param}'"
    else:
        message = f"invalid value{where}: {shorten(first.message, MESSAGE_VALUE_CHARS)}"
    return InvalidRequest(message, param=param)


class TypedJSONBodyValidator(JSONRequestBodyValidator):  # type: ignore[misc]
    """Connexion's JSON validator, raising :class:`InvalidRequest` with ``param`` set. Connexion makes one per
    request; the schema it validates against and the jsonschema validator are made once per operation."""

    def __init__(self, *, schema: dict[str, Any], **kwargs: Any) -> None:
        rewritten, self._built, self._accepts, self._schema_text = _prepared(_SameSchema(schema))
        super().__init__(schema=rewritten, **kwargs)

    @property
    def _validator(self) -> Any:
        return self._built

    async def wrap_receive(self, receive: Receive, *, scope: Scope) -> tuple[Receive, Scope]:
        """Read the body, parse and validate it (on a worker when big), keep the parsed value in the scope, and
        replay the body's messages to the app."""
        if not int(Headers(scope=scope).get("content-length", 0) or 0):
            # No body: Connexion's own answer (every body in the documents is required: a 400).
            return await super().wrap_receive(receive, scope=scope)  # type: ignore[no-any-return]
        messages: list[Message] = []
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
        raw = b"".join(m.get("body", b"") for m in messages)
        depth = _max_depth(scope)
        pool = offload_of(scope) if len(raw) >= OFFLOAD_BODY_BYTES else None
        if pool is None:
            body = self._parsed(raw, depth)
        else:  # checked in a process, then parsed on a thread (http/offload.py says why)
            pool.note_big_request()
            scope[BIG_BODY] = True
            failure = await pool.run_apart(check_apart, self._schema_text, raw, depth, self._nullable)
            if failure is not None:
                raise InvalidRequest(failure[0], param=failure[1])
            body = await pool.run(parse_checked, raw)
        scope[PARSED_BODY] = body
        return self._insert_messages(receive, messages=messages), scope

    def _parsed(self, raw: bytes, max_depth: int) -> Any:
        body = parse_body(raw, max_depth)
        if not (body is None and self._nullable):
            self._validate(stand_in(body) if len(raw) > LONG_TEXT else body)
        return body

    async def _parse(self, stream: Any, scope: Scope) -> Any:
        """Connexion's path for bodies it fills in itself (a schema default)."""
        return parse_body(b"".join([chunk async for chunk in stream]), _max_depth(scope))

    def _validate(self, body: Any) -> dict[str, Any] | None:
        if body is None:
            raise InvalidRequest("request body must be a JSON object")
        if isinstance(body, dict) and self._accepts(body):
            return None  # valid: jsonschema's walk is only needed to name what is wrong
        error = body_error(self._validator, body)
        if error is not None:
            raise error
        return None


def _max_depth(scope: Scope) -> int:
    services = scope.get("state", {}).get("services")
    settings = getattr(services, "settings", None)
    return int(getattr(settings, "max_json_depth", DEFAULT_MAX_DEPTH))

