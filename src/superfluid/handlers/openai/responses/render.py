"""One response's output items, built from the engine's deltas, and (when it streams) its typed SSE events.

The same object serves both forms, so a streamed response and a plain one hold the same items: reasoning
becomes a ``reasoning`` item whose summary is the thinking text, content a ``message`` item with one
``output_text`` part, and each tool call a ``function_call`` item, in the order the model wrote them. Text that
is only whitespace opens no item of its own: it waits for the text after it, and is dropped if an item of
another kind comes first (the blank lines around a tool call).

Every piece of per-stream state lives here: the sequence number every event carries, the output indices, the
open item. ``delta`` runs on the engine thread when the stream is direct (http/direct.py) and on the event
loop otherwise; ``lead``, ``close`` and ``fail`` run on the loop, after every delta was rendered (the engine
hands over a choice's deltas before its Finished event). A lock keeps the two threads' turns apart anyway.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from superfluid.engine import TextDelta, ToolCallDelta, Usage
from superfluid.errors import SuperfluidError
from superfluid.handlers.openai import shapes as openai_shapes
from superfluid.handlers.openai.responses import shapes
from superfluid.handlers.openai.responses.input import new_id
from superfluid.http.streams import dumps, sse_data

_TEXT_DELTA = b"event: response.output_text.delta\ndata: "
_TEXT_DELTA_TAIL = b',"logprobs":[],"sequence_number":'


@dataclass
class _Message:
    id: str
    index: int
    texts: list[str] = field(default_factory=list)
    logprobs: list[dict[str, Any]] = field(default_factory=list)
    status: str = "in_progress"
    head: bytes = b""
    """The hot path's frame up to the delta's text (the item's id and index are fixed)."""

    def part(self) -> dict[str, Any]:
        return {"type": "output_text", "text": "".join(self.texts), "annotations": [], "logprobs": self.logprobs}

    def item(self, *, content: bool = True) -> dict[str, Any]:
        return {"type": "message", "id": self.id, "status": self.status, "role": "assistant",
                "content": [self.part()] if content else []}


@dataclass
class _Reasoning:
    id: str
    index: int
    texts: list[str] = field(default_factory=list)
    status: str = "in_progress"

    def part(self) -> dict[str, Any]:
        return {"type": "summary_text", "text": "".join(self.texts)}

    def item(self, *, content: bool = True) -> dict[str, Any]:
        return {"type": "reasoning", "id": self.id, "summary": [self.part()] if content else [],
                "status": self.status}


@dataclass
class _Call:
    id: str
    index: int
    call_id: str
    name: str
    engine_index: int
    namespace: str | None = None
    arguments: list[str] = field(default_factory=list)
    status: str = "in_progress"

    def item(self, *, content: bool = True) -> dict[str, Any]:
        item = {"type": "function_call", "id": self.id, "call_id": self.call_id, "name": self.name,
                "arguments": "".join(self.arguments) if content else "", "status": self.status}
        if self.namespace is not None:  # a function declared inside a namespace tool
            item["namespace"] = self.namespace
        return item


_Item = _Message | _Reasoning | _Call


class ResponseRender:
    """Output items and stream events of one response (see the module)."""

    def __init__(self, base: dict[str, Any], *, stream: bool, logprobs: bool,
                 namespaces: Mapping[str, str] | None = None) -> None:
        self.base = base
        self._namespaces = namespaces or {}
        self._stream = stream
        self._logprobs = logprobs
        self._lock = threading.Lock()
        self._seq = 0
        self.items: list[_Item] = []
        self._open: _Item | None = None
        self._held = ""
        self._held_kind: type[_Message] | type[_Reasoning] | None = None
        self._held_logprobs: list[dict[str, Any]] = []

    # ---- events ----------------------------------------------------------------------------------------------
    def _emit(self, out: list[bytes], frame: dict[str, Any]) -> None:
        if self._stream:
            frame["sequence_number"] = self._seq
            self._seq += 1
            out.append(sse_data(frame, frame["type"]))

    def next_sequence(self) -> int:
        """The sequence number of an event of the loop's own (an error, framed by its dialect), taken in turn."""
        with self._lock:
            self._seq += 1
            return self._seq - 1

    def lead(self) -> bytes:
        """response.created and response.in_progress: render before the generation starts."""
        with self._lock:
            out: list[bytes] = []
            self._emit(out, {"type": "response.created", "response": self.base})
            self._emit(out, {"type": "response.in_progress", "response": self.base})
            return b"".join(out)

    def delta(self, delta: TextDelta) -> bytes | None:
        """The events of one engine delta (None when it shows nothing yet)."""
        with self._lock:
            opened = self._open
            if (self._stream and isinstance(opened, _Message) and delta.content and not self._logprobs
                    and not delta.reasoning and not delta.tool_calls):
                opened.texts.append(delta.content)  # the hot path: one text delta of the open message
                seq = self._seq
                self._seq += 1
                return b"%b%b%b%d}\n\n" % (opened.head, dumps(delta.content).encode(), _TEXT_DELTA_TAIL, seq)
            out: list[bytes] = []
            if delta.reasoning:
                self._text(out, _Reasoning, delta.reasoning, ())
            logprobs = openai_shapes.chat_logprobs(delta.logprobs)["content"] if self._logprobs else []
            if delta.content or logprobs:
                self._text(out, _Message, delta.content, logprobs)
            if delta.tool_calls:
                self._calls(out, delta.tool_calls)
            return b"".join(out) or None

    def _text(self, out: list[bytes], kind: type[_Message] | type[_Reasoning], text: str,
              logprobs: Iterable[dict[str, Any]]) -> None:
        item = self._open
        if not isinstance(item, kind):
            if self._held_kind is not kind:
                self._drop_held()
            self._held += text
            self._held_kind = kind
            self._held_logprobs.extend(logprobs)
            if not self._held.strip():
                return  # whitespace alone opens nothing
            text, logprobs = self._held, self._held_logprobs
            self._held, self._held_kind, self._held_logprobs = "", None, []
            item = self._open_item(out, kind)
        if not text and not logprobs:
            return
        if isinstance(item, _Message):
            item.texts.append(text)
            lp = list(logprobs)
            item.logprobs.extend(lp)
            self._emit(out, {"type": "response.output_text.delta", "item_id": item.id, "output_index": item.index,
                             "content_index": 0, "delta": text, "logprobs": lp})
        elif isinstance(item, _Reasoning):
            item.texts.append(text)
            self._emit(out, {"type": "response.reasoning_summary_text.delta", "item_id": item.id,
                             "output_index": item.index, "summary_index": 0, "delta": text})

    def _drop_held(self) -> None:
        self._held, self._held_kind, self._held_logprobs = "", None, []

    def _open_item(self, out: list[bytes], kind: type[_Message] | type[_Reasoning]) -> _Item:
        self._close_open(out, "completed")
        index = len(self.items)
        item: _Item
        if kind is _Message:
            item = _Message(new_id("msg"), index)
            frame = dumps({"type": "response.output_text.delta", "item_id": item.id, "output_index": index,
                           "content_index": 0, "delta": ""})
            item.head = _TEXT_DELTA + frame[:-len('""}')].encode()  # ... "delta":
        else:
            item = _Reasoning(new_id("rs"), index)
        self.items.append(item)
        self._open = item
        self._emit(out, {"type": "response.output_item.added", "output_index": index,
                         "item": item.item(content=False)})
        if isinstance(item, _Message):
            self._emit(out, {"type": "response.content_part.added", "item_id": item.id, "output_index": index,
                             "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": [],
                                                          "logprobs": []}})
        else:
            self._emit(out, {"type": "response.reasoning_summary_part.added", "item_id": item.id,
                             "output_index": index, "summary_index": 0, "part": {"type": "summary_text", "text": ""}})
        return item

    def _calls(self, out: list[bytes], calls: Iterable[ToolCallDelta]) -> None:
        for call in calls:
            item = self._open
            if call.name is not None:
                self._drop_held()
                self._close_open(out, "completed")
                item = _Call(new_id("fc"), len(self.items), call.id or new_id("call"), call.name, call.index,
                             self._namespaces.get(call.name))
                self.items.append(item)
                self._open = item
                self._emit(out, {"type": "response.output_item.added", "output_index": item.index,
                                 "item": item.item(content=False)})
            if not isinstance(item, _Call) or item.engine_index != call.index or not call.arguments:
                continue
            item.arguments.append(call.arguments)
            self._emit(out, {"type": "response.function_call_arguments.delta", "item_id": item.id,
                             "output_index": item.index, "delta": call.arguments})

    def _close_open(self, out: list[bytes], status: str) -> None:
        item, self._open = self._open, None
        if item is None:
            return
        item.status = status
        if isinstance(item, _Message):
            part = item.part()
            self._emit(out, {"type": "response.output_text.done", "item_id": item.id, "output_index": item.index,
                             "content_index": 0, "text": part["text"], "logprobs": part["logprobs"]})
            self._emit(out, {"type": "response.content_part.done", "item_id": item.id, "output_index": item.index,
                             "content_index": 0, "part": part})
        elif isinstance(item, _Reasoning):
            part = item.part()
            self._emit(out, {"type": "response.reasoning_summary_text.done", "item_id": item.id,
                             "output_index": item.index, "summary_index": 0, "text": part["text"]})
            self._emit(out, {"type": "response.reasoning_summary_part.done", "item_id": item.id,
                             "output_index": item.index, "summary_index": 0, "part": part})
        else:
            self._emit(out, {"type": "response.function_call_arguments.done", "item_id": item.id,
                             "output_index": item.index, "name": item.name, "arguments": "".join(item.arguments)})
        self._emit(out, {"type": "response.output_item.done", "output_index": item.index, "item": item.item()})

    # ---- the end ---------------------------------------------------------------------------------------------
    def output(self) -> list[dict[str, Any]]:
        return [item.item() for item in self.items]

    def close(self, used: Usage, *, truncated: bool) -> tuple[bytes, dict[str, Any]]:
        """Close the open item: the events that end the items, and the finished response object."""
        with self._lock:
            out: list[bytes] = []
            self._drop_held()
            self._close_open(out, "incomplete" if truncated else "completed")
            return b"".join(out), shapes.finished(self.base, self.output(), used, truncated=truncated)

    def fail(self, error: SuperfluidError) -> dict[str, Any]:
        """The failed response object (items so far, the open one incomplete)."""
        with self._lock:
            if self._open is not None:
                self._open.status = "incomplete"
                self._open = None
            return shapes.failed(self.base, self.output(), error)

    def terminal(self, response: dict[str, Any]) -> bytes:
        """response.completed, response.incomplete or response.failed, carrying the final object."""
        kind = {"completed": "response.completed", "incomplete": "response.incomplete"}.get(
            response["status"], "response.failed")
        frame = {"type": kind, "response": response, "sequence_number": self.next_sequence()}
        return sse_data(frame, kind)

