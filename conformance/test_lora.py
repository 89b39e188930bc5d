"""LoRA adapters on the real server and the real bundled model: GET /v1/lora, POST /v1/lora/load and
/v1/lora/unload (httpx), generations through the official openai SDK.

The adapters are built here for SmolLM2-135M with the `gguf` package: B all zeros (a no-op), B filled (changes the
greedy reply), and files that must be refused. Replies compared for equality use batch-invariant lanes (their own
context, a cold cache, ticks alone), so a difference can only come from the adapter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openai import AsyncOpenAI, OpenAI

from conformance.lora_adapters import bundled_shapes, write_adapter
from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

INVARIANT = {"x-superfluid-batch-invariant": "1"}
QUESTION = "Name three rivers in Europe."


@pytest.fixture(scope="module")
def adapters(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lora")
    directory = root / "adapters"
    write_adapter(directory / "zero.gguf", b=0.0)
    write_adapter(directory / "styles" / "strong.gguf", b=0.2)  # changes the reply from its first token
    write_adapter(directory / "other-arch.gguf", arch="gemma3", b=0.05)
    write_adapter(directory / "a-model.gguf", general_type="model")
    doubled = {name: (n_in * 2, n_out) for name, (n_in, n_out) in bundled_shapes().items()}
    write_adapter(directory / "bigger-model.gguf", shapes=doubled)
    (directory / "notes.gguf").write_text("not a GGUF file")
    write_adapter(root / "outside.gguf", b=0.05)
    (directory / "escape.gguf").symlink_to(root / "outside.gguf")
    write_adapter(root / "startup" / "warm-start.gguf", b=0.0)
    return directory


@pytest.fixture(scope="module")
def lora_server(adapters: Path) -> Iterator[tuple[RunningServer, dict[str, Any]]]:
    """A two-lane server with the adapters directory and one adapter applied at start-up (scale 0.5); yields it
    with the listing it answered right after start-up. The tests then begin from no adapters."""
    startup = adapters.parent / "startup" / "warm-start.gguf"
    # --flash-attn on: several tests here tell which adapters a reply ran under by comparing its greedy text with
    # the text of the same request alone, in shared lanes. With flash attention off a lane's attention sums over
    # the KV range every lane shares, so another lane's cache can flip a near tie (docs/api.md,
    # "Reproducibility"); llama.cpp's flash attention kernel skips the masked cells. Two lanes in one pool get it
    # from --flash-attn auto already; the flag says that these tests depend on it.
    running = start_server([DEFAULT_MODEL, "--parallel", "2", "--ctx-size", "2048", "--http-allow-batch-invariant",
                            "--lora-dir", str(adapters), "--lora-scaled", str(startup), "0.5", "--flash-attn", "on"],
                           adapters.parent / "serve.log")
    listing = httpx.get(running.base_url + "/v1/lora").json()
    httpx.post(running.base_url + "/v1/lora/unload", json={}).raise_for_status()
    yield running, listing
    stop_server(running)


@pytest.fixture
def lora(lora_server: tuple[RunningServer, dict[str, Any]]) -> Iterator[httpx.Client]:
    """httpx on the LoRA server; every test leaves the model without adapters."""
    with httpx.Client(base_url=lora_server[0].base_url, timeout=120) as http:
        yield http
        http.post("/v1/lora/unload", json={}).raise_for_status()


@pytest.fixture
def sdk(lora_server: tuple[RunningServer, dict[str, Any]]) -> Iterator[OpenAI]:
    with OpenAI(base_url=lora_server[0].base_url + "/v1", api_key="unused", max_retries=0, timeout=300) as client:
        yield client


def _reply(sdk: OpenAI, prompt: str = QUESTION, max_tokens: int = 12) -> str:
    reply = sdk.chat.completions.create(model=DEFAULT_MODEL, messages=[{"role": "user", "content": prompt}],
                                        max_tokens=max_tokens, temperature=0, extra_headers=INVARIANT)
    return reply.choices[0].message.content or ""


def _load(http: httpx.Client, path: str, scale: float = 1.0) -> dict[str, Any]:
    response = http.post("/v1/lora/load", json={"path": path, "scale": scale})
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_the_start_up_adapter_is_listed_with_its_scale_and_path(lora_server: tuple[RunningServer, dict[str, Any]],
                                                                adapters: Path) -> None:
    startup = adapters.parent / "startup" / "warm-start.gguf"
    assert lora_server[1] == {"object": "list", "model": DEFAULT_MODEL, "data": [
        {"object": "lora_adapter", "id": str(startup), "path": str(startup.resolve()), "scale": 0.5,
         "origin": "startup"}]}


def test_zero_b_changes_nothing_a_filled_b_changes_the_reply_and_unload_restores_it(lora: httpx.Client,
                                                                                   sdk: OpenAI) -> None:
    base = _reply(sdk)
    _load(lora, "zero.gguf")
    assert _reply(sdk) == base
    lora.post("/v1/lora/unload", json={"path": "zero.gguf"}).raise_for_status()
    _load(lora, "styles/strong.gguf")
    changed = _reply(sdk)
    assert changed != base
    lora.post("/v1/lora/unload", json={"path": "styles/strong.gguf"}).raise_for_status()
    assert _reply(sdk) == base


def test_the_listing_shows_each_active_adapter_with_scale_and_path(lora: httpx.Client, adapters: Path) -> None:
    def entry(name: str, scale: float) -> dict[str, Any]:
        return {"object": "lora_adapter", "id": name, "path": str((adapters / name).resolve()), "scale": scale,
                "origin": "lora-dir"}

    assert _load(lora, "styles/strong.gguf", 0.25)["data"] == [entry("styles/strong.gguf", 0.25)]
    assert _load(lora, "./zero.gguf", -1.0)["data"] == [entry("styles/strong.gguf", 0.25), entry("zero.gguf", -1.0)]
    # A new scale for an active adapter replaces it where it stands.
    assert _load(lora, "styles/strong.gguf", 1.5)["data"] == [entry("styles/strong.gguf", 1.5),
                                                             entry("zero.gguf", -1.0)]
    shown = lora.get("/v1/lora", params={"model": DEFAULT_MODEL}).json()
    assert shown == {"object": "list", "model": DEFAULT_MODEL,
                     "data": [entry("styles/strong.gguf", 1.5), entry("zero.gguf", -1.0)]}
    unloaded = lora.post("/v1/lora/unload", json={"path": "styles/strong.gguf", "model": DEFAULT_MODEL}).json()
    assert unloaded["data"] == [entry("zero.gguf", -1.0)]
    assert lora.post("/v1/lora/unload", json={}).json()["data"] == []
    assert lora.get("/v1/lora").json()["data"] == []


def test_a_stream_started_before_a_load_finishes_under_the_adapters_it_started_with(
        lora: httpx.Client, lora_server: tuple[RunningServer, dict[str, Any]]) -> None:
    """Shared lanes: the long stream and a request under the new adapter decode in turns (never in one tick);
    the stream's text is the text it gives without any adapter."""
    base_url = lora_server[0].base_url
    long_body: dict[str, Any] = {"model": DEFAULT_MODEL, "max_tokens": 80, "temperature": 0,
                                 "messages": [{"role": "user", "content": "Tell a long story about a lighthouse."}],
                                 "extra_body": {"ignore_eos": True}}
    other: dict[str, Any] = {"model": DEFAULT_MODEL, "max_tokens": 8, "temperature": 0,
                             "messages": [{"role": "user", "content": QUESTION}]}

    async def stream(client: AsyncOpenAI, body: dict[str, Any], first: asyncio.Event | None = None) -> str:
        text = ""
        async for chunk in await client.chat.completions.create(**body, stream=True):
            if chunk.choices and chunk.choices[0].delta.content:
                text += chunk.choices[0].delta.content
                if first is not None:
                    first.set()
        return text

    async def run() -> tuple[str, str, str, str, bool]:
        async with AsyncOpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0, timeout=300) as client:
            alone = await stream(client, long_body)
            other_base = await stream(client, other)
            started = asyncio.Event()
            long_task = asyncio.create_task(stream(client, long_body, started))
            await started.wait()
            async with httpx.AsyncClient(base_url=base_url, timeout=120) as http:
                assert (await http.post("/v1/lora/load", json={"path": "styles/strong.gguf"})).status_code == 200
            first = asyncio.Event()
            other_task = asyncio.create_task(stream(client, other, first))
            await first.wait()
            overlapped = not long_task.done()
            return alone, await long_task, other_base, await other_task, overlapped

    switches = lora.get("/slots").json()[0]["totals"]["adapter_switches"]
    alone, during, other_base, other_adapted, overlapped = asyncio.run(run())
    assert overlapped, "the adapter request finished before the long stream got going; nothing was tested"
    assert during == alone
    assert other_adapted != other_base  # the request queued after the load ran under the adapter
    assert lora.get("/slots").json()[0]["totals"]["adapter_switches"] > switches


def test_kv_cached_under_one_adapter_set_is_not_reused_under_another(lora: httpx.Client, sdk: OpenAI) -> None:
    messages: list[Any] = [{"role": "system", "content": "You answer in one word. " * 30},
                           {"role": "user", "content": "Which fruit is yellow?"}]

    def cached() -> tuple[int, int]:
        reply = sdk.chat.completions.create(model=DEFAULT_MODEL, messages=messages, max_tokens=2, temperature=0)
        assert reply.usage is not None and reply.usage.prompt_tokens_details is not None
        return reply.usage.prompt_tokens_details.cached_tokens or 0, reply.usage.prompt_tokens

    cached()
    warm, prompt = cached()
    assert warm >= prompt - 1
    _load(lora, "zero.gguf")  # even an adapter that changes nothing is another model for the cache
    assert cached()[0] == 0
    assert cached()[0] >= prompt - 1  # ... and its own prefix is reused under it
    lora.post("/v1/lora/unload", json={}).raise_for_status()
    assert cached()[0] >= prompt - 1  # the base model's cache survived the change-over


@pytest.mark.parametrize("path, message", [
    ("missing.gguf", "there is no adapter file 'missing.gguf'"),
    ("../outside.gguf", "leads outside the adapters directory"),
    ("escape.gguf", "leads outside the adapters directory"),
    ("/etc/hostname", "leads outside the adapters directory"),
    ("notes.gguf", "is not a GGUF LoRA adapter"),
    ("a-model.gguf", "is not a LoRA adapter: its general.type is 'model'"),
    ("other-arch.gguf", "is an adapter for the 'gemma3' architecture; model 'smollm2-135m-instruct' is 'llama'"),
    ("bigger-model.gguf", "the adapter was made for another model"),
])
def test_adapters_that_are_unknown_outside_or_unfit_are_400s_naming_path(lora: httpx.Client, path: str,
                                                                         message: str) -> None:
    response = lora.post("/v1/lora/load", json={"path": path})
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["type"], error["param"], error["code"]) == ("invalid_request_error", "path", "invalid_lora_adapter")
    assert message in error["message"]
    assert lora.get("/v1/lora").json()["data"] == []


def test_malformed_requests_unknown_models_and_inactive_adapters(lora: httpx.Client) -> None:
    for body, param in (({}, "path"), ({"path": ""}, "path"), ({"path": "zero.gguf", "scale": "max"}, "scale")):
        response = lora.post("/v1/lora/load", json=body)
        assert response.status_code == 400 and response.json()["error"]["param"] == param, response.text
    assert lora.post("/v1/lora/load", json={"path": "zero.gguf", "model": "no-such-model"}).status_code == 404
    assert lora.get("/v1/lora", params={"model": "no-such-model"}).status_code == 404
    inactive = lora.post("/v1/lora/unload", json={"path": "zero.gguf"})
    assert inactive.status_code == 400
    assert inactive.json()["error"]["message"] == f"'zero.gguf' is not active on model '{DEFAULT_MODEL}'"
    assert lora.post("/v1/lora/unload", json={}).json()["data"] == []  # clearing nothing is fine
