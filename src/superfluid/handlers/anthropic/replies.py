"""Engine results in Anthropic's wire shapes: the message, its usage, and the events of a streamed message.

A reply's content is up to three kinds of block, in the order the model wrote them: ``thinking`` (what the
template's reasoning block held, with a signature), ``text``, and ``tool_use`` (one per call, its input an
object). A stream opens each block with ``content_block_start``, fills it with deltas and closes it with
``content_block_stop`` before the next one opens; indices count up from 0.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Iterable
from typing import Any, Literal

from superfluid.engine import ChoiceResult, Finished, FinishReason, GenerationStream, TextDelta, ToolCallDelta
from superfluid.handlers.conversation import parsed_calls
from superfluid.handlers.generation import StreamRenderer
from superfluid.http.dialect import Dialect
from superfluid.http.streams import Frame, dumps, sse_data

BlockKind = Literal["text", "thinking", "tool_use"]

_STOP_REASONS: dict[FinishReason, str] = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}


def new_message_id() -> str:
    return "msg_" + secrets.token_hex(12)


def tool_use_id(call_id: str | None) -> str:
    """The engine's call id as Anthropic writes one; the same call always gets the same id."""
    return "toolu_" + (call_id or "").removeprefix("call_")


def stop_reason(finish: FinishReason, stop_sequence: str | None) -> str:
    if stop_sequence is not None:
        return "stop_sequence"
    return _STOP_REASONS.get(finish, "end_turn")


def usage(prompt: int, completion: int, cached: int) -> dict[str, int]:
    """Anthropic counts input in parts: what was read from the cache, and the rest. Caching costs nothing here,
    so no tokens are ever "written" to it."""
    return {"input_tokens": prompt - cached, "output_tokens": completion,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": cached}


class Signature:
    """A thinking block's signature: a digest of its text (base64 SHA-256), taken as the text arrives."""

    def __init__(self, text: str = "") -> None:
        self._hash = hashlib.sha256(text.encode())

    def update(self, text: str) -> None:
        self._hash.update(text.encode())

    def value(self) -> str:
        return base64.b64encode(self._hash.digest()).decode()


def message(message_id: str, model: str, content: list[dict[str, Any]], *, stop: str | None,
            stop_sequence: str | None, usage_body: dict[str, int]) -> dict[str, Any]:
    return {"id": message_id, "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": stop, "stop_sequence": stop_sequence, "usage": usage_body}


def content_blocks(choice: ChoiceResult, *, show_thinking: bool) -> list[dict[str, Any]]:
    """A finished reply's blocks; a call cut off by max_tokens keeps the input written so far, closed into an
    object, as the streamed blocks add up to."""
    blocks: list[dict[str, Any]] = []
    if choice.reasoning:
        blocks.append({"type": "thinking", "thinking": choice.reasoning if show_thinking else "",
                       "signature": Signature(choice.reasoning).value()})
    if choice.content:
        blocks.append({"type": "text", "text": choice.content})
    for call, arguments in parsed_calls(choice.tool_calls, choice.finish_reason):
        blocks.append({"type": "tool_use", "id": tool_use_id(call["id"]), "name": call["name"], "input": arguments})
    return blocks


def _event(frame: Frame) -> bytes:
    return sse_data(frame, str(frame["type"]))


class MessageEvents(StreamRenderer):
    """The events of one streamed message (a StreamRenderer, handlers/generation.py).

    ``delta`` renders one TextDelta; it is called in order, one thread at a time (the engine thread when the
    stream is direct, else the loop), and keeps which block is open. ``finish`` closes the last block and the
    message; the loop calls it after the engine's last delta (the Finished event follows every delta).
    """

    dialect = Dialect.ANTHROPIC

    def __init__(self, message_id: str, model: str, *, show_thinking: bool) -> None:
        self.message_id, self.model, self.show_thinking = message_id, model, show_thinking
        self.index = -1
        self.open: BlockKind | None = None
        self._signature = Signature()
        self._text_head = b""
        self._tail = b"}}\n\n"

    def lead(self, generation: GenerationStream, warm: int) -> bytes:
        """message_start: the message with no content yet."""
        body = message(self.message_id, self.model, [], stop=None, stop_sequence=None,
                       usage_body=usage(generation.prompt_tokens, 0, warm))
        return _event({"type": "message_start", "message": body})

    def delta(self, event: TextDelta) -> bytes | None:
        out: list[bytes] = []
        if event.reasoning:
            self._thinking(event.reasoning, out)
        if event.content:
            if self.open != "text":
                self._open("text", {"type": "text", "text": ""}, out)
            # The hot path: a text delta written as bytes around the encoded text.
            out.append(self._text_head + dumps(event.content).encode() + self._tail)
        if event.tool_calls:
            self._calls(event.tool_calls, out)
        return b"".join(out) or None

    async def finish(self, finished: Finished) -> bytes:
        out: list[bytes] = []
        self._close(out)
        counts = finished.usage
        out.append(_event({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason(finished.finish_reason, finished.stop_sequence),
                      "stop_sequence": finished.stop_sequence},
            "usage": usage(counts.prompt_tokens, counts.completion_tokens, counts.cached_tokens),
        }))
        out.append(_event({"type": "message_stop"}))
        return b"".join(out)

    # ---- blocks -----------------------------------------------------------------------------------------------
    def _open(self, kind: BlockKind, block: dict[str, Any], out: list[bytes]) -> None:
        self._close(out)
        self.index += 1
        self.open = kind
        out.append(_event({"type": "content_block_start", "index": self.index, "content_block": block}))
        if kind == "text":
            head = dumps({"type": "content_block_delta", "index": self.index, "delta": {"type": "text_delta"}})
            self._text_head = b"event: content_block_delta\ndata: " + head[:-2].encode() + b',"text":'

    def _close(self, out: list[bytes]) -> None:
        if self.open is None:
            return
        if self.open == "thinking":
            out.append(self._delta({"type": "signature_delta", "signature": self._signature.value()}))
        out.append(_event({"type": "content_block_stop", "index": self.index}))
        self.open = None

    def _delta(self, delta: dict[str, Any]) -> bytes:
        return _event({"type": "content_block_delta", "index": self.index, "delta": delta})

    def _thinking(self, text: str, out: list[bytes]) -> None:
        if self.open != "thinking":
            self._open("thinking", {"type": "thinking", "thinking": "", "signature": ""}, out)
            self._signature = Signature()
        self._signature.update(text)
        if self.show_thinking:
            out.append(self._delta({"type": "thinking_delta", "thinking": text}))

    def _calls(self, pieces: Iterable[ToolCallDelta], out: list[bytes]) -> None:
        for piece in pieces:
            if piece.name is not None:
                self._open("tool_use", {"type": "tool_use", "id": tool_use_id(piece.id), "name": piece.name,
                                        "input": {}}, out)
            if piece.arguments and self.open == "tool_use":
                out.append(self._delta({"type": "input_json_delta", "partial_json": piece.arguments}))
