"""The Responses routes in-process: a scripted engine double behind them, the real state store under a temporary
sessions directory."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from superfluid.app import create_app
from superfluid.engine.decoding.tool_calls import ToolCallDelta
from superfluid.engine.types import (
    ChatPrompt,
    Finished,
    GenerationRequest,
    PreparedPrompt,
    TextDelta,
    Usage,
)
from superfluid.errors import ContextLengthExceeded
from superfluid.settings import Settings
from superfluid.state import Bounds, State
from tests.conftest import FakeModel, FakeServices, ScriptedStream, served_by_uvicorn

REPLY = [TextDelta(0, reasoning="thinking "), TextDelta(0, content="Hel"), TextDelta(0, content="lo"),
         TextDelta(0, tool_calls=(ToolCallDelta(0, "call_1", "f", '{"x": 1}'),))]


class _Model(FakeModel):
    id = "fake"
    n_vocab = 100
    template = SimpleNamespace(variables=frozenset(), thinks=False, name="fake")

    def __init__(self) -> None:
        self.requests: list[GenerationRequest] = []
        self.hooks: list[Any] = []
        self.max_messages = 100

    def prepare(self, request: GenerationRequest) -> PreparedPrompt:
        assert isinstance(request.prompt, ChatPrompt)
        if len(request.prompt.messages) > self.max_messages:
            raise ContextLengthExceeded("too long", param="messages")
        return PreparedPrompt(tokens=tuple(range(12)))

    def generate(self, request: GenerationRequest, prepared: PreparedPrompt | None = None,
                 direct: Any = None, disk: Any = None, whole: bool = False) -> ScriptedStream:
        self.requests.append(request)
        self.hooks.append(direct)
        return ScriptedStream(REPLY, direct, cached_tokens=5,
                              finished=Finished(0, "stop", Usage(12, len(REPLY), 5, reasoning_tokens=1)))


class _Services(FakeServices):
    def __init__(self, settings: Settings, sessions: Path) -> None:
        super().__init__(settings)
        self.model = _Model()
        self.state = State(sessions, Bounds())

    async def start(self) -> None:
        await self.state.open()

    async def close(self) -> None:
        await self.state.close()

    @property
    def models(self) -> Any:
        model = self.model

        class Registry:
            async def get(self, model_id: str) -> _Model:
                return model

        return Registry()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, _Services]]:
    settings = Settings(keepalive_s=30)
    services = _Services(settings, tmp_path_factory.mktemp("sessions"))
    with TestClient(create_app(settings, services=services), raise_server_exceptions=False) as client:  # type: ignore[arg-type]
        yield client, services


def _create(client: TestClient, **body: Any) -> dict[str, Any]:
    reply = client.post("/v1/responses", json={"model": "fake", "input": "Hi", **body})
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def _error(reply: httpx.Response, status: int) -> dict[str, Any]:
    assert reply.status_code == status, reply.text
    return dict(reply.json()["error"])


def test_a_response_is_stored_and_read_back_whole(app: tuple[TestClient, _Services]) -> None:
    client, _ = app
    created = _create(client, metadata={"k": "v"})
    assert [item["type"] for item in created["output"]] == ["reasoning", "message", "function_call"]
    assert created["usage"]["input_tokens_details"]["cached_tokens"] == 5
    got = client.get(f"/v1/responses/{created['id']}")
    assert got.status_code == 200 and got.json() == created
    assert got.headers["content-type"].startswith("application/json")


def test_store_false_is_not_retrievable(app: tuple[TestClient, _Services]) -> None:
    client, _ = app
    created = _create(client, store=False)
    assert created["store"] is False
    assert _error(client.get(f"/v1/responses/{created['id']}"), 404)["param"] == "response_id"
    error = _error(client.post("/v1/responses", json={"model": "fake", "input": "again",
                                                      "previous_response_id": created["id"]}), 404)
    assert error["param"] == "previous_response_id"


def test_a_continuation_starts_from_the_earlier_items(app: tuple[TestClient, _Services]) -> None:
    client, services = app
    first = _create(client, input="First question", instructions="Be terse.")
    _create(client, input="Second question", previous_response_id=first["id"])
    messages = services.model.requests[-1].prompt.messages  # type: ignore[union-attr]
    assert [(m.role, m.content) for m in messages] == [
        ("user", "First question"), ("assistant", "Hello"), ("user", "Second question")]  # instructions not kept
    assert messages[1].reasoning_content == "thinking "
    assert messages[1].tool_calls[0].id == "call_1"


def test_deleted_is_gone_everywhere(app: tuple[TestClient, _Services]) -> None:
    client, _ = app
    created = _create(client)
    deleted = client.delete(f"/v1/responses/{created['id']}")
    assert deleted.status_code == 200
    assert deleted.json() == {"id": created["id"], "object": "response", "deleted": True}
    _error(client.get(f"/v1/responses/{created['id']}"), 404)
    _error(client.delete(f"/v1/responses/{created['id']}"), 404)
    _error(client.get(f"/v1/responses/{created['id']}/input_items"), 404)
    follow = client.post("/v1/responses", json={"model": "fake", "input": "x", "previous_response_id": created["id"]})
    assert _error(follow, 404)["param"] == "previous_response_id"


def test_input_items_page_through_the_whole_chain(app: tuple[TestClient, _Services]) -> None:
    client, _ = app
    first = _create(client, input=[{"role": "user", "content": "one"}, {"role": "user", "content": "two"}])
    second = _create(client, input="three", previous_response_id=first["id"])
    url = f"/v1/responses/{second['id']}/input_items"
    everything = client.get(url, params={"limit": 100, "order": "asc"}).json()
    assert [i["type"] for i in everything["data"]] == ["message", "message", "reasoning", "message",
                                                       "function_call", "message"]
    assert everything["has_more"] is False
    ids = [i["id"] for i in everything["data"]]
    page = client.get(url).json()  # default: newest first, 20 a page
    assert [i["id"] for i in page["data"]] == ids[::-1]
    seen, after = [], None
    while True:
        page = client.get(url, params={"limit": 4, "order": "desc", **({"after": after} if after else {})}).json()
        seen += [i["id"] for i in page["data"]]
        assert page["first_id"] == page["data"][0]["id"] and page["last_id"] == page["data"][-1]["id"]
        if not page["has_more"]:
            break
        after = page["last_id"]
    assert seen == ids[::-1]
    empty = client.get(url, params={"after": ids[0]}).json()
    assert empty == {"object": "list", "data": [], "has_more": False, "first_id": None, "last_id": None}
    assert _error(client.get(url, params={"after": "msg_nope"}), 400)["param"] == "after"
    _error(client.get(url, params={"limit": 0}), 400)
    _error(client.get(url, params={"limit": 101}), 400)


@pytest.mark.parametrize(("extra", "param"), [
    ({"background": True}, "background"),
    ({"conversation": "conv_1"}, "conversation"),
    ({"input": [{"type": "item_reference", "id": "msg_1"}]}, "input[0].type"),
    ({"input": [], "instructions": None}, "input"),
])
def test_what_is_not_served_is_a_400_naming_it(app: tuple[TestClient, _Services], extra: dict[str, Any],
                                                param: str) -> None:
    client, _ = app
    assert _error(client.post("/v1/responses", json={"model": "fake", "input": "x", **extra}), 400)["param"] == param


def test_retrieving_as_a_stream_is_refused(app: tuple[TestClient, _Services]) -> None:
    client, _ = app
    created = _create(client)
    assert _error(client.get(f"/v1/responses/{created['id']}", params={"stream": "true"}), 400)["param"] == "stream"


def test_auto_truncation_drops_the_oldest_turns(app: tuple[TestClient, _Services]) -> None:
    client, services = app
    turns = [{"role": r, "content": f"{r} {i}"} for i in range(4) for r in ("user", "assistant")][:-1]
    services.model.max_messages = 4
    try:
        error = _error(client.post("/v1/responses", json={"model": "fake", "input": turns}), 400)
        assert error["code"] == "context_length_exceeded" and error["param"] == "input"
        _create(client, input=turns, truncation="auto", instructions="sys")
    finally:
        services.model.max_messages = 100
    messages = services.model.requests[-1].prompt.messages  # type: ignore[union-attr]
    assert [m.content for m in messages] == ["sys", "user 2", "assistant 2", "user 3"]


# ---- streams -----------------------------------------------------------------------------------------------
def _sse(raw: bytes) -> list[dict[str, Any]]:
    frames = []
    for block in raw.decode().split("\n\n"):
        if block.startswith("event: "):
            event, data = block.split("\n")
            frames.append(json.loads(data.removeprefix("data: ")))
            assert event == "event: " + frames[-1]["type"]
    assert "[DONE]" not in raw.decode()
    return frames


def _normalized(frames: list[dict[str, Any]]) -> str:
    """Ids and clocks differ between two responses; everything else must not."""
    text = json.dumps(frames)
    for frame in frames:
        for value in (frame.get("response") or {}).get("id"), frame.get("item_id"):
            if value:
                text = text.replace(value, "<id>")
        item = frame.get("item") or {}
        if item.get("id"):
            text = text.replace(item["id"], "<id>")
    return text


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, _Services]]:
    settings = Settings(keepalive_s=30)
    services = _Services(settings, tmp_path_factory.mktemp("served"))
    with served_by_uvicorn(settings, services) as base_url:
        yield base_url, services


def test_a_direct_stream_sends_what_the_loop_path_sends(served: tuple[str, _Services],
                                                         app: tuple[TestClient, _Services]) -> None:
    base_url, services = served
    body = {"model": "fake", "input": "Hi", "stream": True}
    with httpx.Client(base_url=base_url, timeout=30) as http:
        direct = _sse(http.post("/v1/responses", json=body).content)
    assert services.model.hooks[-1] is not None, "the stream under uvicorn did not take the direct path"
    client, in_process = app
    ordinary = _sse(client.post("/v1/responses", json=body).content)
    assert in_process.model.hooks[-1] is None
    assert [f["sequence_number"] for f in direct] == list(range(len(direct)))
    for frames in (direct, ordinary):
        for frame in frames:
            if "response" in frame:
                frame["response"]["created_at"] = frame["response"]["completed_at"] = 0
    assert _normalized(direct) == _normalized(ordinary)
    final = direct[-1]["response"]
    assert direct[-1]["type"] == "response.completed" and final["status"] == "completed"
    with httpx.Client(base_url=base_url, timeout=30) as http:
        stored = http.get(f"/v1/responses/{final['id']}").json()
    stored["created_at"] = stored["completed_at"] = 0
    assert stored == final  # committed before response.completed went out


# ---- keys and --nonstream-keepalive ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = Settings(keepalive_s=30, api_keys=("key-one", "key-two"), nonstream_keepalive_s=0.05)
    services = _Services(settings, tmp_path_factory.mktemp("keyed"))
    with TestClient(create_app(settings, services=services), raise_server_exceptions=False) as client:  # type: ignore[arg-type]
        yield client


def test_a_stored_response_belongs_to_the_key_that_made_it(keyed: TestClient) -> None:
    one, two = {"Authorization": "Bearer key-one"}, {"Authorization": "Bearer key-two"}
    created = keyed.post("/v1/responses", json={"model": "fake", "input": "Hi"}, headers=one)
    assert created.status_code == 200, created.text
    response_id = json.loads(created.text)["id"]  # leading spaces (the keep-alive padding) are valid JSON
    assert created.headers["x-superfluid-keepalive"] == "whitespace"
    assert keyed.get(f"/v1/responses/{response_id}", headers=one).status_code == 200
    for path in (f"/v1/responses/{response_id}", f"/v1/responses/{response_id}/input_items"):
        assert keyed.get(path, headers=two).status_code == 404
    assert keyed.delete(f"/v1/responses/{response_id}", headers=two).status_code == 404
    other = keyed.post("/v1/responses", json={"model": "fake", "input": "Hi", "previous_response_id": response_id},
                       headers=two)
    assert other.status_code == 404 and json.loads(other.text)["error"]["param"] == "previous_response_id"
    assert keyed.delete(f"/v1/responses/{response_id}", headers=one).status_code == 200
