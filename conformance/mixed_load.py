"""Mixed traffic over every dialect, with a ledger of what the server acknowledged: the load behind the soak
benchmark (benchmarks/soak.py) and the kill -9 test (conformance/test_kill_under_load.py).

Each client loops, picking its next request at random by weight: OpenAI chat and completions (streamed and
whole), Anthropic messages, Responses stored (and continued with ``previous_response_id`` up to a few turns),
Ollama chat, embeddings, file uploads, and two ways of leaving (after the first token, and before any). One more
task keeps a batch running. Every request becomes an ``Outcome``: its kind and dialect, what it got, and its time to
first token. What the server acknowledged goes into the ``Ledger``: a stored response once its whole body or its
``response.completed`` event arrived, a file once its upload was answered, a batch once created. ``verify`` then
checks, on the same or a restarted server, that each of them is there and intact.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

PROMPTS = ["Name a river in Europe.", "Say one word about autumn.", "What is two plus two?", "Name a colour.",
           "Describe a cat in one sentence.", "Name a city in Peru.", "Write a haiku about rain.",
           "Give me a synonym for happy.", "What do bees make?", "Count from one to five."]
BATCH_LINES = 8
LEFT = "left"
"""The status of a request the client left on purpose."""


@dataclass
class Outcome:
    kind: str
    dialect: str
    status: str
    """"200", another HTTP status, "200 error <code>" for an error frame after the first byte, ``LEFT``, or the
    name of the transport error (the server was killed, say)."""
    started: float
    ttft: float | None
    """Seconds to the first generated text of a streamed reply; None for a whole reply or none at all."""
    seconds: float


@dataclass
class Ledger:
    responses: dict[str, str] = field(default_factory=dict)
    """id -> the output text the client was given."""
    files: dict[str, str] = field(default_factory=dict)
    """id -> SHA-256 of the bytes uploaded."""
    batches: dict[str, int] = field(default_factory=dict)
    """id -> lines in its input."""


def _text_of(response: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for item in response.get("output", []) if item.get("type") == "message"
                   for part in item.get("content", []))


def _openai_text(event: dict[str, Any]) -> bool:
    choices = event.get("choices") or [{}]
    return bool((choices[0].get("delta") or {}).get("content") or choices[0].get("text"))


def _error_code(event: dict[str, Any]) -> str | None:
    """The code of an error frame in any dialect, None when ``event`` is not one."""
    if event.get("type") in ("error", "response.failed") or ("error" in event and event.get("type") is None):
        error = event.get("error") or (event.get("response") or {}).get("error") or {}
        return str(error.get("code") or error.get("type") or error) if isinstance(error, dict) else str(error)
    return None


@dataclass
class _Stream:
    """What a streamed request should look like in one dialect."""
    dialect: str
    path: str
    ndjson: bool
    has_text: Callable[[dict[str, Any]], bool]


_CHAT = _Stream("openai", "/v1/chat/completions", False, _openai_text)
_COMPLETIONS = _Stream("openai", "/v1/completions", False, _openai_text)
_MESSAGES = _Stream("anthropic", "/v1/messages", False, lambda e: e.get("type") == "content_block_delta")
_RESPONSES = _Stream("responses", "/v1/responses", False, lambda e: e.get("type") == "response.output_text.delta")
_OLLAMA = _Stream("ollama", "/api/chat", True, lambda e: bool((e.get("message") or {}).get("content")))


class MixedLoad:
    """``clients`` closed-loop clients on ``base_url``, until ``stop`` is set. ``embed_model``: also embeddings;
    ``only``: just the kinds of these names."""

    def __init__(self, base_url: str, *, model: str, clients: int, embed_model: str | None = None,
                 seed: int = 0, max_tokens: int = 24, only: tuple[str, ...] = ()) -> None:
        self.base_url, self.model, self.clients, self.embed_model = base_url, model, clients, embed_model
        self.max_tokens = max_tokens
        self.rng = random.Random(seed)
        self.outcomes: list[Outcome] = []
        self.ledger = Ledger()
        self.stop = asyncio.Event()
        kinds: dict[str, tuple[int, Callable[[httpx.AsyncClient, dict[str, Any]], Any]]] = {
            "chat stream": (3, lambda h, s: self._stream(h, _CHAT, self._chat_body())),
            "chat": (1, lambda h, s: self._whole(h, "openai", "/v1/chat/completions", self._chat_body())),
            "completions stream": (1, lambda h, s: self._stream(h, _COMPLETIONS, self._completion_body())),
            "completions": (1, lambda h, s: self._whole(h, "openai", "/v1/completions", self._completion_body())),
            "messages stream": (2, lambda h, s: self._stream(h, _MESSAGES, self._messages_body())),
            "messages": (1, lambda h, s: self._whole(h, "anthropic", "/v1/messages", self._messages_body())),
            "responses stream": (2, self._responses_stream),
            "responses": (1, self._responses_whole),
            "ollama stream": (2, lambda h, s: self._stream(h, _OLLAMA, self._ollama_body())),
            "upload": (1, self._upload),
            "leave after first token": (1, lambda h, s: self._stream(h, _CHAT, self._chat_body(), leave=True)),
            "leave before any": (1, self._leave_early),
        }
        if embed_model:
            kinds["embeddings"] = (1, self._embeddings)
        self.kinds = {name: kind for name, kind in kinds.items() if not only or name in only}
        """``only``: just the kinds of these names (to see what one of them costs)."""

    # ---- running -------------------------------------------------------------------------------------------------

    async def run(self, *, batches: bool = True) -> None:
        limits = httpx.Limits(max_connections=self.clients + 8, max_keepalive_connections=self.clients + 8)
        async with httpx.AsyncClient(base_url=self.base_url, timeout=httpx.Timeout(600, connect=10),
                                     limits=limits) as http:
            tasks = [asyncio.create_task(self._client(http, n)) for n in range(self.clients)]
            if batches:
                tasks.append(asyncio.create_task(self._batches(http)))
            await self.stop.wait()
            await asyncio.sleep(0)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _client(self, http: httpx.AsyncClient, n: int) -> None:
        state: dict[str, Any] = {"rng": random.Random(self.rng.random() + n)}
        names = list(self.kinds)
        weights = [self.kinds[name][0] for name in names]
        while not self.stop.is_set():
            kind = state["rng"].choices(names, weights)[0]
            started = time.monotonic()
            try:
                outcome: Outcome = await self.kinds[kind][1](http, state)
            except httpx.HTTPError as exc:
                outcome = Outcome(kind, "", type(exc).__name__, started, None, time.monotonic() - started)
                await asyncio.sleep(0.2)  # the server may be gone; do not spin
            outcome.kind = kind
            self.outcomes.append(outcome)

    # ---- request bodies ------------------------------------------------------------------------------------------

    def _prompt(self) -> str:
        return self.rng.choice(PROMPTS)

    def _sampling(self) -> dict[str, Any]:
        return {"temperature": self.rng.choice([0.0, 0.7])}

    def _chat_body(self) -> dict[str, Any]:
        return {"model": self.model, "max_tokens": self.max_tokens, **self._sampling(),
                "messages": [{"role": "user", "content": self._prompt()}]}

    def _completion_body(self) -> dict[str, Any]:
        return {"model": self.model, "max_tokens": self.max_tokens, "prompt": self._prompt(), **self._sampling()}

    def _messages_body(self) -> dict[str, Any]:
        return {"model": self.model, "max_tokens": self.max_tokens, **self._sampling(),
                "messages": [{"role": "user", "content": self._prompt()}]}

    def _ollama_body(self) -> dict[str, Any]:
        return {"model": self.model, "messages": [{"role": "user", "content": self._prompt()}],
                "options": {"num_predict": self.max_tokens, **self._sampling()}}

    def _responses_body(self, state: dict[str, Any]) -> dict[str, Any]:
        body = {"model": self.model, "input": self._prompt(), "max_output_tokens": self.max_tokens,
                "store": True, **self._sampling()}
        if state.get("previous") and state.get("turns", 0) < 4:
            body["previous_response_id"] = state["previous"]
        else:
            state["turns"] = 0
        return body

    def _acknowledged(self, state: dict[str, Any], response: dict[str, Any]) -> None:
        self.ledger.responses[response["id"]] = _text_of(response)
        state["previous"], state["turns"] = response["id"], state.get("turns", 0) + 1

    # ---- the kinds -----------------------------------------------------------------------------------------------

    async def _whole(self, http: httpx.AsyncClient, dialect: str, path: str, body: dict[str, Any]) -> Outcome:
        started = time.monotonic()
        reply = await http.post(path, json=body)
        return Outcome("", dialect, str(reply.status_code), started, None, time.monotonic() - started)

    async def _stream(self, http: httpx.AsyncClient, how: _Stream, body: dict[str, Any], *, leave: bool = False,
                      seen: Callable[[dict[str, Any]], None] | None = None) -> Outcome:
        started, ttft, status = time.monotonic(), None, ""
        async with http.stream("POST", how.path, json={**body, "stream": True}) as reply:
            status = str(reply.status_code)
            if reply.status_code != 200:
                await reply.aread()
            else:
                async for line in reply.aiter_lines():
                    text = line if how.ndjson else line.removeprefix("data: ") if line.startswith("data: ") else ""
                    if not text or text == "[DONE]":
                        continue
                    event = json.loads(text)
                    code = _error_code(event)
                    if code is not None:
                        status = f"200 error {code}"
                    if ttft is None and how.has_text(event):
                        ttft = time.monotonic() - started
                        if leave:
                            status = LEFT
                            break
                    if seen is not None:
                        seen(event)
        return Outcome("", how.dialect, status, started, ttft, time.monotonic() - started)

    async def _responses_stream(self, http: httpx.AsyncClient, state: dict[str, Any]) -> Outcome:
        def seen(event: dict[str, Any]) -> None:
            if event.get("type") == "response.completed":
                self._acknowledged(state, event["response"])
        return await self._stream(http, _RESPONSES, self._responses_body(state), seen=seen)

    async def _responses_whole(self, http: httpx.AsyncClient, state: dict[str, Any]) -> Outcome:
        started = time.monotonic()
        reply = await http.post("/v1/responses", json=self._responses_body(state))
        if reply.status_code == 200:
            self._acknowledged(state, reply.json())
        return Outcome("", "responses", str(reply.status_code), started, None, time.monotonic() - started)

    async def _upload(self, http: httpx.AsyncClient, state: dict[str, Any]) -> Outcome:
        started = time.monotonic()
        data = state["rng"].randbytes(state["rng"].randint(1, 64 * 1024))
        reply = await http.post("/v1/files", data={"purpose": "user_data"},
                                files={"file": ("soak.bin", data, "application/octet-stream")})
        if reply.status_code == 200:
            self.ledger.files[reply.json()["id"]] = hashlib.sha256(data).hexdigest()
        return Outcome("", "files", str(reply.status_code), started, None, time.monotonic() - started)

    async def _leave_early(self, http: httpx.AsyncClient, state: dict[str, Any]) -> Outcome:
        started = time.monotonic()
        async with http.stream("POST", _MESSAGES.path, json={**self._messages_body(), "stream": True}) as reply:
            status = str(reply.status_code) if reply.status_code != 200 else LEFT
        return Outcome("", "anthropic", status, started, None, time.monotonic() - started)

    async def _embeddings(self, http: httpx.AsyncClient, state: dict[str, Any]) -> Outcome:
        return await self._whole(http, "embeddings", "/v1/embeddings",
                                 {"model": self.embed_model, "input": [self._prompt() for _ in range(4)]})

    async def _batches(self, http: httpx.AsyncClient) -> None:
        """One batch at a time, the next created once the last one ended."""
        while not self.stop.is_set():
            try:
                await self._one_batch(http)
            except httpx.HTTPError:
                await asyncio.sleep(1)

    async def _one_batch(self, http: httpx.AsyncClient) -> None:
        lines = "".join(json.dumps({"custom_id": f"line-{i}", "method": "POST", "url": "/v1/chat/completions",
                                    "body": {**self._chat_body(), "max_tokens": 8}}) + "\n"
                        for i in range(BATCH_LINES)).encode()
        uploaded = await http.post("/v1/files", data={"purpose": "batch"},
                                   files={"file": ("input.jsonl", lines, "application/jsonl")})
        if uploaded.status_code != 200:
            await asyncio.sleep(1)
            return
        self.ledger.files[uploaded.json()["id"]] = hashlib.sha256(lines).hexdigest()
        created = await http.post("/v1/batches", json={"input_file_id": uploaded.json()["id"],
                                                       "endpoint": "/v1/chat/completions",
                                                       "completion_window": "24h"})
        if created.status_code != 200:
            await asyncio.sleep(1)
            return
        batch_id = created.json()["id"]
        self.ledger.batches[batch_id] = BATCH_LINES
        while not self.stop.is_set():
            status = (await http.get(f"/v1/batches/{batch_id}")).json().get("status")
            if status in ("completed", "failed", "expired", "cancelled"):
                return
            await asyncio.sleep(1)


# ---- killing under load ---------------------------------------------------------------------------------------------

async def load_then_kill(load: MixedLoad, process: subprocess.Popen[bytes], seconds: float) -> float:
    """Run ``load`` for ``seconds``, SIGKILL the server ``process`` while it is still running, stop the clients, and
    return the moment of the kill."""
    runner = asyncio.create_task(load.run())
    await asyncio.sleep(seconds)
    killed_at = time.monotonic()
    process.send_signal(signal.SIGKILL)
    await asyncio.to_thread(process.wait, 30)
    load.stop.set()
    await runner
    return killed_at


def unexpected(outcomes: list[Outcome], before: float = float("inf")) -> list[str]:
    """Answers other than success or a planned leave, among the requests that ended before ``before``."""
    return [f"{o.kind}: {o.status}" for o in outcomes
            if o.started + o.seconds < before and o.status not in ("200", LEFT)]


# ---- checking what was acknowledged ---------------------------------------------------------------------------------

BATCH_ENDED = ("completed", "failed", "expired", "cancelled")


def verify(base_url: str, ledger: Ledger, *, batch_timeout_s: float = 300) -> list[str]:
    """Every acknowledged response, file and batch on the server at ``base_url``, whole; every file the server lists
    readable at its stated size; every batch ended complete with each line answered once. The problems found."""
    problems: list[str] = []
    with httpx.Client(base_url=base_url, timeout=120) as http:
        for response_id, text in ledger.responses.items():
            reply = http.get(f"/v1/responses/{response_id}")
            if reply.status_code != 200:
                problems.append(f"response {response_id}: {reply.status_code}")
            elif _text_of(reply.json()) != text:
                problems.append(f"response {response_id}: its text changed")
        for file_id, digest in ledger.files.items():
            reply = http.get(f"/v1/files/{file_id}/content")
            if reply.status_code != 200:
                problems.append(f"file {file_id}: {reply.status_code}")
            elif hashlib.sha256(reply.content).hexdigest() != digest:
                problems.append(f"file {file_id}: its bytes changed")
        for listed in http.get("/v1/files").json()["data"]:
            content = http.get(f"/v1/files/{listed['id']}/content")
            if content.status_code != 200 or len(content.content) != listed["bytes"]:
                problems.append(f"listed file {listed['id']}: {content.status_code}, {len(content.content)} of "
                                f"{listed['bytes']} bytes")
        for batch_id, count in ledger.batches.items():
            problems += _batch_problems(http, batch_id, count, batch_timeout_s)
    return problems


def _batch_problems(http: httpx.Client, batch_id: str, count: int, timeout_s: float) -> list[str]:
    deadline = time.monotonic() + timeout_s
    batch = http.get(f"/v1/batches/{batch_id}").json()
    while batch.get("status") not in BATCH_ENDED and time.monotonic() < deadline:
        time.sleep(0.5)
        batch = http.get(f"/v1/batches/{batch_id}").json()
    if batch.get("status") != "completed":
        return [f"batch {batch_id}: {batch.get('status')} ({batch.get('errors') or batch.get('error')})"]
    counts = batch["request_counts"]
    if (counts["total"], counts["completed"]) != (count, count):
        return [f"batch {batch_id}: counts {counts}"]
    output = http.get(f"/v1/files/{batch['output_file_id']}/content").text.splitlines()
    ids = sorted(json.loads(line)["custom_id"] for line in output if line.strip())
    if ids != sorted(f"line-{i}" for i in range(count)):
        return [f"batch {batch_id}: output lines {ids}"]
    return []


def lanes_in_use(base_url: str) -> tuple[int, int]:
    """Lanes not idle and requests waiting for one, on the default model (after the load, both should be 0)."""
    slot = httpx.get(base_url + "/slots", timeout=30).json()[0]
    return sum(1 for lane in slot["lanes"] if lane["state"] != "idle"), int(slot.get("waiting") or 0)
