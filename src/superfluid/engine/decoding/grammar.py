"""Grammar-constrained decoding with llguidance: JSON schemas and Lark grammars become token masks.

A constraint is compiled once per distinct schema (cached) and checked before any work is queued, so a schema
the grammar engine cannot express, or one that loops with no way out (engine/decoding/schema_loops.py), is a
400 ``constraint unsatisfiable: ...``. Each lane that decodes under a
constraint owns a ``GrammarState``: before sampling it masks the logits of every token the grammar forbids
(about 25 µs for a 49k vocabulary), after sampling it advances the matcher.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import llama_cpp
import llguidance
import llguidance.llamacpp
import numpy as np
import numpy.typing as npt

from superfluid.engine.decoding.schema_loops import describe_loop, unproductive_loop
from superfluid.errors import ConstraintUnsatisfiable

# Compact, deterministic JSON: no free whitespace for a small model to loop in, fixed separators that
# incremental parsers (tool-call streaming) can rely on.
JSON_OPTIONS: Any = {
    "whitespace_flexible": False,
    "item_separator": ", ",
    "key_separator": ": ",
}

ANY_JSON_OBJECT: dict[str, Any] = {"type": "object"}


def lark_literal(text: str) -> str:
    """A Lark string literal."""
    return json.dumps(text, ensure_ascii=False)


def lark_json(schema: Any) -> str:
    """A Lark ``%json`` item, in the compact layout."""
    body = dict(schema) if isinstance(schema, dict) else ({} if schema is True else {"not": {}})
    return "%json " + json.dumps({**body, "x-guidance": JSON_OPTIONS}, ensure_ascii=False)


def closed_objects(schema: Any) -> Any:
    """The schema with every object that lists ``properties`` and says nothing of extra keys closed, and every
    integer or number without bounds held to MAX_INTEGER_DIGITS integral digits (a number also to
    MAX_FRACTION_DIGITS after the point).

    JSON Schema reads an absent ``additionalProperties`` as "anything goes", and a small model takes the offer: it
    invents keys until the token cap. llama.cpp closes such objects, and clients that send plain schemas
    (pydantic's ``model_json_schema()``, no ``strict``) expect what it does. ``additionalProperties: true`` or a
    schema for extra keys is kept as written. The direct branches of ``allOf`` stay open at their own level (each
    branch names only some of the keys the whole object has); what they nest is closed. The input is not modified.
    """
    return _closed(schema, close_here=True)


MAX_INTEGER_DIGITS = 16
"""Integral digits an integer or number may have where its schema sets no bound, as llama.cpp's schema converter
allows: without a bound a small model writes ``"population": 1111...`` until the token cap."""
_INTEGER_BOUND = 10 ** MAX_INTEGER_DIGITS - 1
MAX_FRACTION_DIGITS = 10
"""Digits after a number's point where its schema sets no ``multipleOf``. llama.cpp allows 16; llguidance
expresses the bound as ``multipleOf: 1e-10`` and refuses steps from 1e-12 down (their binary value has too many
decimal digits), so 10 is the most it can hold."""
_FRACTION_STEP = 1e-10


def _bounded(out: dict[str, Any]) -> None:
    """Bound an integer's or number's digits where its schema does not (see MAX_INTEGER_DIGITS), in place."""
    if "minimum" not in out and "exclusiveMinimum" not in out:
        out["minimum"] = -_INTEGER_BOUND
    if "maximum" not in out and "exclusiveMaximum" not in out:
        out["maximum"] = _INTEGER_BOUND
    if out["type"] == "number" and "multipleOf" not in out:
        out["multipleOf"] = _FRACTION_STEP


def _closed(schema: Any, *, close_here: bool) -> Any:
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if out.get("type") in ("integer", "number"):
        _bounded(out)
    is_object = out.get("type", "object") == "object" or (
        isinstance(out.get("type"), list) and "object" in out["type"])
    if (close_here and is_object and "properties" in out and "additionalProperties" not in out
            and "patternProperties" not in out):
        out["additionalProperties"] = False
    for key in ("properties", "$defs", "definitions"):
        if isinstance(out.get(key), dict):
            out[key] = {k: _closed(v, close_here=True) for k, v in out[key].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(out.get(key), dict):
            out[key] = _closed(out[key], close_here=True)
    for key in ("anyOf", "oneOf", "prefixItems"):
        if isinstance(out.get(key), list):
            out[key] = [_closed(v, close_here=True) for v in out[key]]
    if isinstance(out.get("allOf"), list):
        out["allOf"] = [_closed(v, close_here=False) for v in out["allOf"]]
    return out


class Constraint:
    """What the output must match: a JSON schema or a Lark grammar (llguidance dialect).

    A schema given with :meth:`for_schema` is turned into text (objects closed) on first use of ``json_schema``,
    which is when it is compiled: for a big request that is on a worker thread, not on the event loop.
    """

    def __init__(self, json_schema: str | None = None, lark: str | None = None, param: str = "response_format",
                 *, schema: Any = None) -> None:
        self._json_schema = json_schema
        self._schema = schema
        self.lark = lark
        self.param = param

    @classmethod
    def for_schema(cls, schema: dict[str, Any], *, param: str = "response_format") -> Constraint:
        """Objects the schema leaves open by omission are closed (:func:`closed_objects`). Key order is kept:
        the grammar emits properties in schema order, and readers rely on it."""
        return cls(schema=schema, param=param)

    @property
    def json_schema(self) -> str | None:
        if self._json_schema is None and self._schema is not None:
            self._json_schema = json.dumps(closed_objects(self._schema))
        return self._json_schema

    @property
    def schema(self) -> Any:
        """The schema as the request gave it (objects not yet closed); None for a Lark grammar."""
        if self._schema is not None:
            return self._schema
        return json.loads(self._json_schema) if self._json_schema is not None else None

    def __repr__(self) -> str:
        return f"Constraint(param={self.param!r}, lark={self.lark is not None}, schema={self._schema is not None})"


@dataclass(frozen=True)
class LazyGrammar:
    """A grammar that engages once the reply writes ``trigger``, and matches the reply from the trigger on."""

    trigger: str
    grammar: str
    at_start: bool = False
    """The trigger counts only at the very start of the reply (leading whitespace aside)."""

    def trigger_at(self, reply: str) -> int | None:
        """Where the trigger starts in the reply so far; None while it has not appeared."""
        if self.at_start:
            head = reply.lstrip()
            return len(reply) - len(head) if head.startswith(self.trigger) else None
        at = reply.find(self.trigger)
        return at if at >= 0 else None

    def may_trigger_later(self, reply: str) -> bool:
        """False once a start-anchored trigger can no longer appear (the reply began otherwise)."""
        return not self.at_start or self.trigger.startswith(reply.lstrip())

    def keep(self, reply: str) -> str:
        """The part of a reply without the trigger that later text may still complete into it."""
        return reply if self.at_start else reply[-len(self.trigger):]


@functools.lru_cache(maxsize=256)
def _compiled(json_schema: str | None, lark: str | None) -> str:
    if lark is not None:
        grammar = llguidance.LLMatcher.grammar_from_lark(lark)
    else:
        assert json_schema is not None
        if '"$ref"' in json_schema:  # without a reference nothing can loop
            loop = unproductive_loop(json.loads(json_schema))
            if loop is not None:
                raise ConstraintUnsatisfiable(describe_loop(loop))
        try:
            grammar = llguidance.LLMatcher.grammar_from_json_schema(json_schema, defaults=JSON_OPTIONS)
        except ValueError as exc:
            raise ConstraintUnsatisfiable(f"the schema is not a JSON object: {exc}") from exc
    failed, messages = llguidance.LLMatcher.validate_grammar_with_warnings(grammar)
    if failed:
        raise ConstraintUnsatisfiable(messages[0] if messages else "the grammar does not compile")
    return grammar


def compile_constraint(constraint: Constraint) -> str:
    """The llguidance grammar for a constraint; raises ConstraintUnsatisfiable naming what cannot be expressed."""
    try:
        return _compiled(constraint.json_schema, constraint.lark)
    except ConstraintUnsatisfiable as exc:
        exc.param = constraint.param
        raise


ROW_ITEMS = 10_000
"""llguidance's cap on the alternatives one parser row may hold (its default is 2,000). A schema's ``anyOf`` of
objects puts one item per branch in the row after ``{``, and an object's optional properties about four each, so
the default turned away valid schemas of 2,001 branches or 500 optional keys, and only once decoding reached that
row. Measured on the bundled model's vocabulary: 5,000 branches build in 0.34 s and mask in at most 2 ms a
token; 2,500 optional properties (9,999 items) in 0.5 s and 40 ms; 10,000 optional properties would take 9 s and
0.6 s a token, and stay refused (docs/structured-outputs.md)."""
PARSER_LIMITS = llguidance.LLParserLimits(max_items_in_row=ROW_ITEMS)

PRISTINE_MATCHERS = 64
"""Unused matchers kept per model, one per recent grammar, to copy from."""
PRISTINE_CHARS = 256 * 1024
"""Most grammar text the kept matchers may stand for together. A matcher takes memory in proportion to its
grammar (about 60 MB for the 400 KB grammar of a 5,000-branch anyOf), so a grammar over a quarter of this is
built afresh each time instead, and its memory goes when its request ends."""


YIELDING_GRAMMAR_CHARS = 64 * 1024
"""Grammars at least this long are built at nice 19 when the caller can wait: a 5,000-branch ``anyOf`` (400 KB)
takes ~0.35 s of CPU to build, which on a machine whose cores decode would come out of the decoding."""

_yielding: ThreadPoolExecutor | None = None
_yielding_lock = threading.Lock()


def _lowest_priority() -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)  # this thread only (Linux)


def build_matcher(tokenizer: llguidance.LLTokenizer, grammar: str, *, yield_cpu: bool = False) -> llguidance.LLMatcher:
    """llguidance's matcher for ``grammar``. With ``yield_cpu`` a big grammar is built on a thread of its own at
    nice 19 while the caller waits: llguidance lets the GIL go while it builds, so a descheduled build holds
    nothing the engine thread needs (unlike Python work at a low priority, which holds the GIL; see
    docs/performance.md). A small grammar (about a millisecond) is built in place. Not undone for the thread:
    an unprivileged process may lower a thread's priority but never raise it again."""
    global _yielding
    if not yield_cpu or len(grammar) < YIELDING_GRAMMAR_CHARS:
        return llguidance.LLMatcher(tokenizer, grammar, limits=PARSER_LIMITS)
    with _yielding_lock:
        if _yielding is None:
            _yielding = ThreadPoolExecutor(1, thread_name_prefix="grammar-nice", initializer=_lowest_priority)
        pool = _yielding
    return pool.submit(llguidance.LLMatcher, tokenizer, grammar, limits=PARSER_LIMITS).result()


class GrammarTokenizer:
    """llguidance's view of one model's vocabulary (built once per model, ~0.25 s).

    Building a matcher parses and prepares its grammar: about a millisecond for a small schema, over a second for
    a schema of thousands of branches, each time. Copying one costs about 0.1 ms whatever its size. So the
    matcher of each recent grammar is kept unused (``PRISTINE_MATCHERS`` and ``PRISTINE_CHARS``, least recently
    used out) and every lane gets a copy: a schema sent with every request is prepared once.
    """

    def __init__(self, vocab: llama_cpp.llama_vocab_p, n_vocab: int, eog: tuple[int, ...]) -> None:
        self.n_vocab = n_vocab
        self.tokenizer = llguidance.llamacpp.lltokenizer_from_vocab(vocab, eos_token=list(eog) or None)
        self._mask_words = (n_vocab + 31) // 32
        self._pristine: OrderedDict[str, llguidance.LLMatcher] = OrderedDict()
        self._pristine_chars = 0
        self._lock = threading.Lock()  # requests are prepared on several threads

    def state(self, grammar: str, *, yield_cpu: bool = False) -> GrammarState:
        """A fresh state at the grammar's start. ``yield_cpu``: a big grammar is built at the lowest CPU priority
        (``build_matcher``); only for callers that may wait, never the engine thread."""
        with self._lock:
            pristine = self._pristine.get(grammar)
            if pristine is not None:
                self._pristine.move_to_end(grammar)
        if pristine is None:
            pristine = build_matcher(self.tokenizer, grammar, yield_cpu=yield_cpu)
            if pristine.is_error() or len(grammar) > PRISTINE_CHARS // 4:  # not kept: the lane takes this one
                return GrammarState(pristine, self.n_vocab, self._mask_words)
            with self._lock:
                self._pristine[grammar] = pristine
                self._pristine_chars += len(grammar)
                while len(self._pristine) > PRISTINE_MATCHERS or self._pristine_chars > PRISTINE_CHARS:
                    self._pristine_chars -= len(self._pristine.popitem(last=False)[0])
        return GrammarState(pristine.deep_copy(), self.n_vocab, self._mask_words)


class GrammarState:
    """One lane's position in its grammar."""

    def __init__(self, matcher: llguidance.LLMatcher, n_vocab: int, mask_words: int) -> None:
        self.matcher = matcher
        self.n_vocab = n_vocab
        self._mask = np.zeros(mask_words, dtype=np.int32)

    def copy(self) -> GrammarState:
        """A fresh state at the same position (copying a matcher is much cheaper than building one)."""
        return GrammarState(self.matcher.deep_copy(), self.n_vocab, len(self._mask))

    def apply(self, logits: npt.NDArray[np.float32]) -> None:
        """Forbid, in place, every token the grammar does not allow next."""
        self.matcher.unsafe_compute_mask_ptr(self._mask.ctypes.data, self._mask.nbytes)
        allowed = np.unpackbits(self._mask.view(np.uint8), bitorder="little")[: self.n_vocab].astype(bool)
        logits[~allowed] = -np.inf

    def advance(self, token: int) -> bool:
        """Consume a sampled token; False when the grammar refused it (the matcher is then in error)."""
        return bool(self.matcher.consume_token(token))

    @property
    def done(self) -> bool:
        return bool(self.matcher.is_stopped())

    @property
    def error(self) -> str | None:
        return str(self.matcher.get_error()) if self.matcher.is_error() else None

    @property
    def reason(self) -> str | None:
        """Why the matcher is in error, fit for a client: llguidance's error goes on with the parser's state and
        the whole grammar (500 KB for a wide schema), and its first line says why."""
        error = self.error
        if error is None:
            return None
        return (error.strip().splitlines() or ["no reason given"])[0][:300]
