"""Writing a session's replies: each reply is an OpenAI chat completion sent in process through the API app.

So a web session gets exactly what an API client gets (the document's validation, the key's models and limits,
the one stream driver, the prefix cache that makes the next turn warm), and this module only turns the chat
stream into the session API's events (docs/web.md, "Reply events") and stores the message as it grows.

A reply runs as a task of its own, not of the connection that asked for it: a page that reloads, or a second
tab, follows it from its first event. Its text is saved at least every ``SAVE_EVERY_S`` (which renews the
message's lease, state/web_sessions.py), and once more when it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import Any

from superfluid.batches.dispatch import InProcess
from superfluid.http.observe import WEB_KEY
from superfluid.state.web_sessions import Reply, SessionStore, new_id

log = logging.getLogger(__name__)

SAVE_EVERY_S = 1.0
KEEP_FINISHED_S = 60.0
"""How long a finished reply's events stay in memory for late followers (then they are rebuilt from the store)."""
POLL_S = 0.5


class SessionBusy(Exception):
    """The session already has a reply being written."""


class RequestRefused(Exception):
    """The API refused the reply's request before it began (unknown model, a limit, a bad parameter)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


@dataclass
class Run:
    """One reply being written, and every event it has sent so far."""

    message_id: str
    session_id: str
    owner: str | None
    reply: Reply
    events: list[dict[str, Any]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    finished: bool = False
    started: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    """Done once the API accepted the reply's request (or failed it before accepting)."""
    stored: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the turn is stored; the reply is saved only after that."""

    def begin(self) -> None:
        """The API accepted the request (or it failed before a byte came back): ``send`` goes on, and followers
        get the ``start`` event. Once only."""
        if not self.started.done():
            self.started.set_result(None)
            self.emit("start", session_id=self.session_id, model=self.reply.model)

    def emit(self, kind: str, **data: Any) -> None:
        self.events.append({"type": kind, "message_id": self.message_id, **data})
        self.changed.set()

    async def follow(self) -> AsyncGenerator[dict[str, Any], None]:
        index = 0
        while True:
            while index < len(self.events):
                yield self.events[index]
                index += 1
            if self.finished:
                return
            self.changed.clear()
            await self.changed.wait()


def history(session: dict[str, Any], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chat messages a reply answers: the session's system prompt, then every earlier turn with text. A
    reply's tool calls stay out (no tool ever answered them), and so do replies that wrote nothing."""
    out: list[dict[str, Any]] = []
    if session.get("system"):
        out.append({"role": "system", "content": session["system"]})
    for message in messages:
        if message["role"] == "user" or message["content"]:
            out.append({"role": message["role"], "content": message["content"]})
    return out


def _sse_events(buffer: bytearray) -> list[dict[str, Any] | str]:
    """The complete ``data:`` payloads at the front of ``buffer`` (removed from it): parsed JSON, or ``[DONE]``."""
    out: list[dict[str, Any] | str] = []
    while (end := buffer.find(b"\n\n")) >= 0:
        frame = bytes(buffer[:end]).decode()
        del buffer[:end + 2]
        data = "".join(line[5:].lstrip() for line in frame.split("\n") if line.startswith("data:"))
        if data:
            out.append(data if data == "[DONE]" else json.loads(data))
    return out


def _error_fields(error: dict[str, Any], code: str, message: str) -> dict[str, str]:
    """An API error object's code (its type when it has none) and message, with defaults."""
    return {"code": str(error.get("code") or error.get("type") or code),
            "message": str(error.get("message") or message)}


class Replies:
    """The replies being written in this process."""

    def __init__(self, store: SessionStore, dispatch: InProcess, *, web_key: str | None,
                 default_model: Callable[[], str]) -> None:
        self.store = store
        self._dispatch = dispatch
        self.web_key = web_key
        self.default_model = default_model
        self._runs: dict[str, Run] = {}
        self._by_session: dict[str, str] = {}
        self._closing = False

    async def send(self, owner: str | None, session_id: str, *, content: str | None, model: str | None,
                   truncate_from: str | None, options: dict[str, Any]) -> tuple[dict[str, Any] | None,
                                                                                dict[str, Any]]:
        """Start the turn's reply and, once the API has accepted its request, store the turn; returns (the user
        message or None, the streaming reply). KeyError: no such session or message; SessionBusy;
        RequestRefused (nothing is stored then)."""
        if session_id in self._by_session:
            raise SessionBusy(session_id)
        self._by_session[session_id] = ""
        run: Run | None = None
        try:
            session = await self.store.get(session_id, owner=owner)
            if session is None:
                raise KeyError(session_id)
            earlier = session["messages"]
            if truncate_from is not None:
                ids = [m["id"] for m in earlier]
                if truncate_from not in ids:
                    raise KeyError(truncate_from)
                earlier = earlier[:ids.index(truncate_from)]
            user = None if content is None else (new_id("msg"), content)
            if user is not None:
                earlier = [*earlier, {"role": "user", "content": content}]
            chosen = model or session["model"] or self.default_model()
            run = Run(new_id("msg"), session_id, owner, Reply(model=chosen))
            body = {"model": chosen, "messages": history(session, earlier), "stream": True,
                    "stream_options": {"include_usage": True}, **options}
            self._runs[run.message_id] = run
            self._by_session[session_id] = run.message_id
            run.task = asyncio.create_task(self._write(run, body))
            await asyncio.shield(run.started)
            messages = await self.store.add_turn(session_id, owner=owner, user=user, reply_id=run.message_id,
                                                 truncate_from=truncate_from, model=chosen)
            run.stored.set()
        except BaseException:
            if run is not None and run.task is not None and not run.stored.is_set():
                run.task.cancel()
                run.stored.set()  # its last save finds no row: nothing of the turn is stored
                self._runs.pop(run.message_id, None)
            if self._by_session.get(session_id) in ("", None, run and run.message_id):
                self._by_session.pop(session_id, None)
            raise
        return messages

    def running_in(self, session_id: str) -> str | None:
        """The id of the reply being written in this session by this process, if one is."""
        return self._by_session.get(session_id) or None

    def is_live(self, message_id: str, owner: str | None) -> bool:
        """Whether this process holds the reply's events (it runs, or ended within KEEP_FINISHED_S)."""
        run = self._runs.get(message_id)
        return run is not None and run.owner == owner

    async def cancel(self, message_id: str, owner: str | None) -> bool:
        run = self._runs.get(message_id)
        if run is None or run.owner != owner or run.finished or run.task is None:
            return False
        run.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(run.task)
        return True

    async def follow(self, message_id: str, owner: str | None) -> AsyncGenerator[dict[str, Any], None]:
        """Every event of a reply from its first: live from this process's run, else rebuilt from the store
        (following a reply another server writes by reading the store until it ends). KeyError if unknown."""
        run = self._runs.get(message_id)
        if run is not None and run.owner == owner:
            async for event in run.follow():
                yield event
            return
        message = await self.store.message(message_id, owner=owner)
        if message is None:
            raise KeyError(message_id)
        yield {"type": "start", "message_id": message_id, "session_id": message["session_id"],
               "model": message.get("model")}
        sent = {"reasoning": "", "text": ""}
        while True:
            for kind, key in (("reasoning", "reasoning"), ("text", "content")):
                if len(message[key]) > len(sent[kind]):
                    yield {"type": kind, "message_id": message_id, "text": message[key][len(sent[kind]):]}
                    sent[kind] = message[key]
            if message["state"] != "streaming":
                break
            await asyncio.sleep(POLL_S)
            message = await self.store.message(message_id, owner=owner) or {**message, "state": "cut"}
        for index, call in enumerate(message["tool_calls"]):
            yield {"type": "tool_call", "message_id": message_id, "index": index, **call}
        if message["usage"]:
            yield {"type": "usage", "message_id": message_id, **message["usage"],
                   "tokens_per_second": message["tokens_per_second"]}
        if message["error"]:
            yield {"type": "error", "message_id": message_id, **message["error"]}
        yield {"type": "done", "message_id": message_id, "state": message["state"],
               "finish_reason": message["finish_reason"]}

    async def close(self) -> None:
        """Stop every reply (each is stored as ``cut``: the server stopped while writing it)."""
        self._closing = True
        runs = [run for run in self._runs.values() if run.task is not None and not run.finished]
        for run in runs:
            assert run.task is not None
            run.task.cancel()
        for run in runs:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await run.task  # type: ignore[misc]

    async def _write(self, run: Run, body: dict[str, Any]) -> None:
        writer = _StreamReader(run)
        saved_at = time.monotonic()
        try:
            stream = self._dispatch.stream("POST", "/v1/chat/completions", body, extra={WEB_KEY: self.web_key})
            async with contextlib.aclosing(stream) as parts:
                async for part in parts:
                    if isinstance(part, int):
                        writer.status = part
                        continue
                    writer.feed(part)
                    if run.stored.is_set() and time.monotonic() - saved_at >= SAVE_EVERY_S:
                        saved_at = time.monotonic()
                        await self.store.save_reply(run.message_id, run.reply)
            writer.end()
        except asyncio.CancelledError:
            run.reply.state = "cut" if self._closing else "cancelled"
        except RequestRefused as refused:
            if not run.started.done():
                run.started.set_exception(refused)
            self._forget(run, delete=True)
            return
        except Exception as exc:  # the reply ends as an error; the server goes on
            log.exception("web reply %s failed", run.message_id)
            run.reply.state = "error"
            run.reply.error = {"code": "internal_error", "message": str(exc) or type(exc).__name__}
            run.emit("error", **run.reply.error)
        run.begin()
        run.reply.tokens_per_second = writer.tokens_per_second()
        if run.reply.usage is not None:
            run.emit("usage", **run.reply.usage, tokens_per_second=run.reply.tokens_per_second)
        try:
            await run.stored.wait()
            await asyncio.shield(self.store.save_reply(run.message_id, run.reply))
        finally:
            run.emit("done", state=run.reply.state, finish_reason=run.reply.finish_reason)
            self._forget(run, delete=False)

    def _forget(self, run: Run, *, delete: bool) -> None:
        run.finished = True
        run.changed.set()
        self._by_session.pop(run.session_id, None)
        if delete:
            self._runs.pop(run.message_id, None)
            return
        asyncio.get_running_loop().call_later(KEEP_FINISHED_S, self._runs.pop, run.message_id, None)


class _StreamReader:
    """Turns the chat completion's SSE bytes into the run's reply and events."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.status = 0
        self._buffer = bytearray()
        self._first_token_at: float | None = None
        self._last_token_at: float | None = None

    def feed(self, data: bytes) -> None:
        self._buffer += data
        if self.status != 200:
            return  # the whole error body comes before end()
        self.run.begin()
        for payload in _sse_events(self._buffer):
            if isinstance(payload, dict):
                self._chunk(payload)

    def end(self) -> None:
        if self.status != 200:
            try:
                error = json.loads(bytes(self._buffer)).get("error") or {}
            except ValueError:
                error = {}
            fields = _error_fields(error, "refused", f"the request was refused ({self.status})")
            raise RequestRefused(self.status, fields["code"], fields["message"])

    def _chunk(self, chunk: dict[str, Any]) -> None:
        run, reply = self.run, self.run.reply
        if "error" in chunk:
            reply.state = "error"
            reply.error = _error_fields(chunk["error"] or {}, "error", "the reply failed")
            run.emit("error", **reply.error)
            return
        if chunk.get("usage"):
            usage = chunk["usage"]
            reply.usage = {"prompt_tokens": int(usage.get("prompt_tokens") or 0),
                           "completion_tokens": int(usage.get("completion_tokens") or 0),
                           "cached_tokens": int((usage.get("prompt_tokens_details") or {}).get("cached_tokens")
                                                or 0)}
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") or {}
            if delta.get("reasoning_content"):
                self._token()
                reply.reasoning += delta["reasoning_content"]
                run.emit("reasoning", text=delta["reasoning_content"])
            if delta.get("content"):
                self._token()
                reply.content += delta["content"]
                run.emit("text", text=delta["content"])
            for call in delta.get("tool_calls") or ():
                self._tool_call(call)
            if choice.get("finish_reason"):
                reply.finish_reason = choice["finish_reason"]
                if reply.state == "streaming":
                    reply.state = "done"

    def _tool_call(self, call: dict[str, Any]) -> None:
        self._token()
        reply, index = self.run.reply, int(call.get("index") or 0)
        function = call.get("function") or {}
        while len(reply.tool_calls) <= index:
            reply.tool_calls.append({"id": None, "name": None, "arguments": ""})
        stored = reply.tool_calls[index]
        stored["id"] = call.get("id") or stored["id"]
        stored["name"] = function.get("name") or stored["name"]
        stored["arguments"] += function.get("arguments") or ""
        self.run.emit("tool_call", index=index, id=call.get("id"), name=function.get("name"),
                      arguments=function.get("arguments") or "")

    def _token(self) -> None:
        now = time.monotonic()
        if self._first_token_at is None:
            self._first_token_at = now
        self._last_token_at = now

    def tokens_per_second(self) -> float | None:
        usage = self.run.reply.usage
        if usage is None or self._first_token_at is None or self._last_token_at is None:
            return None
        span = self._last_token_at - self._first_token_at
        tokens = usage["completion_tokens"] - 1
        return round(tokens / span, 1) if span > 0 and tokens > 0 else None
