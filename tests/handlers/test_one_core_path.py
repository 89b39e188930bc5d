"""One core path: the same engine outcomes through all four dialects, whole and streamed.

The real app runs under uvicorn (as `superfluid serve` runs it, so streams take the direct path) over a model
whose generation replays a scripted outcome. Each reply is read back into what it carries (text, reasoning,
calls, how it ended, usage) in its own dialect's shape, and the test asserts that every dialect carries the same,
and that a stream's pieces add up to the whole reply. The outcomes: plain text with a quiet period, reasoning,
one and parallel tool calls, a tool call cut by the token cap, a stop sequence, a grammar that gives up
mid-reply, an engine failure mid-stream, and a client that leaves mid-stream.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import httpx
import pytest

from superfluid.engine.decoding.tool_calls import ToolCallDelta
from superfluid.engine.scheduling.stream import Gathered, GenerationStream, _failure
from superfluid.engine.types import ChatPrompt, Failed, Finished, GenerationRequest, PreparedPrompt, TextDelta, Usage
from superfluid.handlers.conversation import partial_object
from superfluid.settings import Settings
from superfluid.state import Bounds, State
from tests.conftest import FakeModel, FakeServices, served_by_uvicorn

PROMPT, CACHED = 12, 5

Event = TextDelta | Finished | Failed | None


def _finished(reason: Any, completion: int, stop_sequence: str | None = None) -> Finished:
    return Finished(0, reason, Usage(PROMPT, completion, CACHED), stop_sequence=stop_sequence)


def _call(name: str, call_id: str, *arguments: str, index: int = 0) -> list[TextDelta]:
    first = TextDelta(0, tool_calls=(ToolCallDelta(index, id=call_id, name=name),))
    return [first, *(TextDelta(0, tool_calls=(ToolCallDelta(index, arguments=a),)) for a in arguments)]


@dataclass(frozen=True)
class Outcome:
    events: list[Event]
    text: str = ""
    reasoning: str = ""
    calls: list[tuple[str, Any]] = field(default_factory=list)
    ends: str = "stop"  # stop, length, tool_calls, stop_sequence
    completion: int = 0
    error: tuple[int, str] | None = None  # (status, message) when the generation fails


OUTCOMES = {
    "plain": Outcome([TextDelta(0, content="Hel"), None, TextDelta(0, content="lo there"), _finished("stop", 3)],
                     text="Hello there", completion=3),
    "reasoning": Outcome([TextDelta(0, reasoning="Let me "), TextDelta(0, reasoning="think."),
                          TextDelta(0, content="Four."), _finished("stop", 5)],
                         text="Four.", reasoning="Let me think.", completion=5),
    "one call": Outcome([*_call("get_weather", "call_a1", '{"city": ', '"Paris"}'), _finished("tool_calls", 9)],
                        calls=[("get_weather", {"city": "Paris"})], ends="tool_calls", completion=9),
    "parallel calls": Outcome([*_call("get_weather", "call_b1", '{"city": "Oslo"}'),
                               *_call("get_time", "call_b2", '{"zone": ', '"CET"}', index=1),
                               _finished("tool_calls", 14)],
                              calls=[("get_weather", {"city": "Oslo"}), ("get_time", {"zone": "CET"})],
                              ends="tool_calls", completion=14),
    "call cut by the cap": Outcome([*_call("get_weather", "call_c1", '{"city": ', '"Par'), _finished("length", 6)],
                                   calls=[("get_weather", {"city": "Par"})], ends="length", completion=6),
    "stop sequence": Outcome([TextDelta(0, content="one two"), _finished("stop", 2, stop_sequence="END")],
                             text="one two", ends="stop_sequence", completion=2),
    "grammar gives up": Outcome([TextDelta(0, content='{"a": '),
                                 Failed(0, "the output grammar gave up at reply token 3", constraint="format")],
                                text='{"a": ', error=(400, "constraint unsatisfiable")),
    "engine fails": Outcome([TextDelta(0, content="Hel"), Failed(0, "llama_decode failed")],
                            text="Hel", error=(500, "llama_decode failed")),
}


class OutcomeStream(GenerationStream):
    """A GenerationStream over a script: admission, then the events (deltas through the direct hook on another
    thread, as the engine thread sends them); ``collect`` and ``events`` are GenerationStream's own. With
    ``hang`` it never ends by itself: only a cancel (the client leaving) stops it."""

    def __init__(self, script: Sequence[Event], direct: Any, *, hang: bool = False) -> None:
        self._jobs = [SimpleNamespace(index=0)]  # type: ignore[list-item]
        self._open = {0}
        self._early = []
        self._scope = None
        self.prompt_tokens = PROMPT
        self.cached_tokens = None
        self.restored_tokens = 0
        self._script = list(script)
        self._direct = direct
        self._hang = hang
        self.gathered = None
        self.cancelled = threading.Event()
        self._loop = asyncio.get_running_loop()

    async def admitted(self) -> int:
        self.cached_tokens = CACHED
        return CACHED

    async def timed_events(self, keepalive_s: float | None) -> AsyncIterator[TextDelta | Finished | None]:
        await self.admitted()
        try:
            for event in self._script:
                if isinstance(event, TextDelta) and self._direct is not None:
                    await asyncio.to_thread(self._direct, event)
                elif isinstance(event, Failed):
                    raise _failure(event)
                elif event is not None or keepalive_s is not None:
                    yield event
            while self._hang:
                await asyncio.sleep(0.01)
        finally:
            self.cancel()

    def cancel(self) -> None:
        if self._open:
            self.cancelled.set()
        self._open.clear()


class _Model(FakeModel):
    id = "fake"
    n_ctx = 4096
    n_vocab = 100
    template = SimpleNamespace(variables=frozenset(), thinks=False, name="fake")
    profile = SimpleNamespace(dialect=lambda: {"enable_thinking": False, "reasoning_effort": False})

    def __init__(self) -> None:
        self.script: list[Event] = []
        self.hang = False
        self.streams: list[OutcomeStream] = []

    def prepare(self, request: GenerationRequest, **_: Any) -> PreparedPrompt:
        return PreparedPrompt(tokens=tuple(range(PROMPT)))

    def generate(self, request: GenerationRequest, prepared: PreparedPrompt | None = None,
                 direct: Any = None, disk: Any = None, whole: bool = False) -> OutcomeStream:
        assert isinstance(request.prompt, ChatPrompt)
        gathered = Gathered() if whole and direct is None else None  # as ServedModel.generate gathers
        self.streams.append(OutcomeStream(self.script, gathered.append if gathered is not None else direct,
                                          hang=self.hang))
        self.streams[-1].gathered = gathered
        return self.streams[-1]


class _Services(FakeServices):
    def __init__(self, settings: Settings, sessions: Path) -> None:
        super().__init__(settings)
        self.model = _Model()
        self.state = State(sessions, Bounds())
        self._n = 0

    async def start(self) -> None:
        await self.state.open()

    async def close(self) -> None:
        await self.state.close()

    def next_id(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}-{self._n}"

    @property
    def models(self) -> Any:
        model = self.model

        class Registry:
            sources: ClassVar[dict[str, object]] = {"fake": object()}

            async def get(self, model_id: str) -> _Model:
                return model

        return Registry()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, _Services]]:
    settings = Settings(keepalive_s=30)
    services = _Services(settings, tmp_path_factory.mktemp("sessions"))
    with served_by_uvicorn(settings, services) as base_url, httpx.Client(base_url=base_url, timeout=30) as client:
        yield client, services


# ---- what a reply carries ---------------------------------------------------------------------------------------

@dataclass
class Carried:
    text: str = ""
    reasoning: str = ""
    calls: list[tuple[str, Any]] = field(default_factory=list)
    ends: str | None = None
    usage: tuple[int, int, int] | None = None  # prompt, completion, cached
    error: tuple[str, str] | None = None  # the error's kind or code, and its message


def _arguments(raw: Any) -> Any:
    """Arguments as an object: dialects that send JSON text send a cut call's text as written."""
    return partial_object(raw) if isinstance(raw, str) else raw


def _sse(raw: bytes) -> list[tuple[str | None, Any]]:
    out: list[tuple[str | None, Any]] = []
    for block in raw.decode().split("\n\n"):
        name, data = None, None
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
        if data is not None and data != "[DONE]":
            out.append((name, json.loads(data)))
    return out


class OpenAIChat:
    path = "/v1/chat/completions"
    ends: ClassVar[dict[str, str]] = {"stop": "stop", "length": "length", "tool_calls": "tool_calls",
                                      "stop_sequence": "stop"}

    @staticmethod
    def body(stream: bool) -> dict[str, Any]:
        return {"model": "fake", "messages": [{"role": "user", "content": "hi"}], "stream": stream}

    @staticmethod
    def whole(reply: dict[str, Any]) -> Carried:
        choice, usage = reply["choices"][0], reply["usage"]
        message = choice["message"]
        return Carried(message["content"] or "", message.get("reasoning_content") or "",
                       [(c["function"]["name"], _arguments(c["function"]["arguments"]))
                        for c in message.get("tool_calls") or []],
                       choice["finish_reason"],
                       (usage["prompt_tokens"], usage["completion_tokens"],
                        usage["prompt_tokens_details"]["cached_tokens"]))

    @staticmethod
    def streamed(raw: bytes) -> Carried:
        assert raw.endswith(b"data: [DONE]\n\n")
        out, calls = Carried(), {}
        for _, frame in _sse(raw):
            if "error" in frame:
                out.error = (frame["error"]["type"], frame["error"]["message"])
                continue
            choice = frame["choices"][0]
            delta = choice["delta"]
            out.text += delta.get("content") or ""
            out.reasoning += delta.get("reasoning_content") or ""
            for piece in delta.get("tool_calls") or []:
                call = calls.setdefault(piece["index"], {"name": "", "arguments": ""})
                call["name"] += piece.get("function", {}).get("name") or ""
                call["arguments"] += piece.get("function", {}).get("arguments") or ""
            if choice["finish_reason"]:
                out.ends = choice["finish_reason"]
                usage = frame["usage"]
                out.usage = (usage["prompt_tokens"], usage["completion_tokens"],
                             usage["prompt_tokens_details"]["cached_tokens"])
        out.calls = [(c["name"], _arguments(c["arguments"])) for _, c in sorted(calls.items())]
        return out

    @staticmethod
    def error(status: int, reply: dict[str, Any]) -> tuple[str, str]:
        return reply["error"]["type"], reply["error"]["message"]


class Anthropic:
    path = "/v1/messages"
    ends: ClassVar[dict[str, str]] = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use",
                                      "stop_sequence": "stop_sequence"}

    @staticmethod
    def body(stream: bool) -> dict[str, Any]:
        return {"model": "fake", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}], "stream": stream}

    @staticmethod
    def _usage(usage: dict[str, Any], prompt: int) -> tuple[int, int, int]:
        return prompt, usage["output_tokens"], usage["cache_read_input_tokens"]

    @classmethod
    def whole(cls, reply: dict[str, Any]) -> Carried:
        out = Carried()
        for block in reply["content"]:
            if block["type"] == "text":
                out.text += block["text"]
            elif block["type"] == "thinking":
                out.reasoning += block["thinking"]
            else:
                out.calls.append((block["name"], block["input"]))
        usage = reply["usage"]
        out.ends = reply["stop_reason"]
        out.usage = cls._usage(usage, usage["input_tokens"] + usage["cache_read_input_tokens"])
        return out

    @classmethod
    def streamed(cls, raw: bytes) -> Carried:
        out, blocks, prompt = Carried(), {}, 0
        for name, event in _sse(raw):
            assert name == event["type"]
            if name == "message_start":
                usage = event["message"]["usage"]
                prompt = usage["input_tokens"] + usage["cache_read_input_tokens"]
            elif name == "content_block_start":
                blocks[event["index"]] = {**event["content_block"], "json": ""}
            elif name == "content_block_delta":
                block, delta = blocks[event["index"]], event["delta"]
                if delta["type"] == "text_delta":
                    out.text += delta["text"]
                elif delta["type"] == "thinking_delta":
                    out.reasoning += delta["thinking"]
                elif delta["type"] == "input_json_delta":
                    block["json"] += delta["partial_json"]
            elif name == "message_delta":
                out.ends = event["delta"]["stop_reason"]
                out.usage = cls._usage(event["usage"], prompt)
            elif name == "error":
                out.error = (event["error"]["type"], event["error"]["message"])
        out.calls = [(b["name"], _arguments(b["json"])) for _, b in sorted(blocks.items()) if b["type"] == "tool_use"]
        return out

    @staticmethod
    def error(status: int, reply: dict[str, Any]) -> tuple[str, str]:
        return reply["error"]["type"], reply["error"]["message"]


class Responses:
    path = "/v1/responses"
    ends: ClassVar[dict[str, str]] = {"stop": "completed", "length": "incomplete", "tool_calls": "completed",
                                      "stop_sequence": "completed"}

    @staticmethod
    def body(stream: bool) -> dict[str, Any]:
        return {"model": "fake", "input": "hi", "stream": stream, "store": False}

    @staticmethod
    def whole(reply: dict[str, Any]) -> Carried:
        out = Carried()
        for item in reply["output"]:
            if item["type"] == "message":
                out.text += "".join(part["text"] for part in item["content"])
            elif item["type"] == "reasoning":
                out.reasoning += "".join(part["text"] for part in item["summary"])
            elif item["type"] == "function_call":
                out.calls.append((item["name"], _arguments(item["arguments"])))
        out.ends = reply["status"]
        usage = reply.get("usage")
        if usage:
            out.usage = (usage["input_tokens"], usage["output_tokens"], usage["input_tokens_details"]["cached_tokens"])
        if reply.get("error"):
            out.error = (reply["error"]["code"], reply["error"]["message"])
        return out

    @classmethod
    def streamed(cls, raw: bytes) -> Carried:
        events = _sse(raw)
        assert [e["sequence_number"] for _, e in events] == list(range(len(events)))
        out, names, arguments = Carried(), {}, {}
        terminal = None
        for name, event in events:
            assert name == event["type"]
            if name == "response.output_text.delta":
                out.text += event["delta"]
            elif name == "response.reasoning_summary_text.delta":
                out.reasoning += event["delta"]
            elif name == "response.output_item.added" and event["item"]["type"] == "function_call":
                names[event["output_index"]] = event["item"]["name"]
                arguments[event["output_index"]] = ""
            elif name == "response.function_call_arguments.delta":
                arguments[event["output_index"]] += event["delta"]
            elif name in ("response.completed", "response.incomplete", "response.failed"):
                terminal = event["response"]
            elif name == "error":
                out.error = (event["code"], event["message"])
        out.calls = [(names[i], _arguments(arguments[i])) for i in sorted(names)]
        assert terminal is not None, "a Responses stream always ends with its terminal event"
        final = cls.whole(terminal)
        out.ends, out.usage = final.ends, final.usage
        # The terminal event's response holds what the deltas added up to.
        assert (final.text, final.reasoning, final.calls) == (out.text, out.reasoning, out.calls)
        if out.error is not None:
            assert final.ends == "failed" and final.error is not None and final.error[1] == out.error[1]
        return out

    @staticmethod
    def error(status: int, reply: dict[str, Any]) -> tuple[str, str]:
        return reply["error"]["type"], reply["error"]["message"]


class Ollama:
    path = "/api/chat"
    ends: ClassVar[dict[str, str]] = {"stop": "stop", "length": "length", "tool_calls": "stop", "stop_sequence": "stop"}

    @staticmethod
    def body(stream: bool) -> dict[str, Any]:
        return {"model": "fake", "messages": [{"role": "user", "content": "hi"}], "stream": stream}

    @staticmethod
    def _add(out: Carried, record: dict[str, Any]) -> None:
        message = record["message"]
        out.text += message["content"]
        out.reasoning += message.get("thinking", "")
        out.calls += [(c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls", [])]
        if record["done"]:
            out.ends = record["done_reason"]
            out.usage = (record["prompt_eval_count"], record["eval_count"], record["prompt_eval_cached_count"])

    @classmethod
    def whole(cls, reply: dict[str, Any]) -> Carried:
        out = Carried()
        cls._add(out, reply)
        return out

    @classmethod
    def streamed(cls, raw: bytes) -> Carried:
        out = Carried()
        assert raw.endswith(b"\n")
        for line in raw.split(b"\n")[:-1]:
            record = json.loads(line)
            if "error" in record:
                out.error = ("error", record["error"])
            else:
                cls._add(out, record)
        return out

    @staticmethod
    def error(status: int, reply: dict[str, Any]) -> tuple[str, str]:
        return "error", reply["error"]


DIALECTS = [OpenAIChat, Anthropic, Responses, Ollama]


def _ask(served: tuple[httpx.Client, _Services], dialect: Any, outcome: Outcome, *,
         stream: bool) -> tuple[int, Any]:
    client, services = served
    services.model.script = outcome.events
    with client.stream("POST", dialect.path, json=dialect.body(stream)) as response:
        raw = response.read()
    assert services.model.streams[-1]._direct is not None or not stream, "a stream that did not go direct"
    if response.status_code != 200:
        return response.status_code, json.loads(raw)
    return 200, dialect.streamed(raw) if stream else dialect.whole(json.loads(raw))


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.__name__)
@pytest.mark.parametrize("name", OUTCOMES)
def test_every_dialect_carries_the_same_reply_whole_and_streamed(served: tuple[httpx.Client, _Services],
                                                                 dialect: Any, name: str) -> None:
    outcome = OUTCOMES[name]
    status, whole = _ask(served, dialect, outcome, stream=False)
    _, streamed = _ask(served, dialect, outcome, stream=True)
    assert isinstance(streamed, Carried)
    if outcome.error is not None:
        # Whole: the error is the reply, with its status. Streamed: 200 went out at admission; the text so far
        # arrives, then the dialect's error frame says the same.
        expected_status, message = outcome.error
        assert status == expected_status, whole
        _, said = dialect.error(status, whole)
        assert message in said and streamed.error is not None and streamed.error[1] == said
        assert streamed.text == outcome.text and streamed.ends in (None, "failed")
        return
    assert status == 200 and isinstance(whole, Carried)
    expected = Carried(outcome.text, outcome.reasoning, outcome.calls, dialect.ends[outcome.ends],
                       (PROMPT, outcome.completion, CACHED))
    assert whole == expected
    assert streamed == whole  # the stream's pieces add up to the whole reply


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.__name__)
def test_a_client_that_leaves_mid_stream_stops_the_generation(served: tuple[httpx.Client, _Services],
                                                              dialect: Any) -> None:
    client, services = served
    services.model.script = [TextDelta(0, content="first")]
    services.model.hang = True
    try:
        with client.stream("POST", dialect.path, json=dialect.body(True)) as response:
            assert response.status_code == 200
            seen = b""
            for chunk in response.iter_bytes():
                seen += chunk
                if b"first" in seen:
                    break
        stream = services.model.streams[-1]
        assert stream.cancelled.wait(10), f"{dialect.__name__}: the abandoned generation was never cancelled"
    finally:
        services.model.hang = False
    time.sleep(0.05)
