"""Fill-in-the-middle end to end. Neither bundled model has FIM tokens, so this server serves the bundled
SmolLM2 with three of its unused special tokens declared as FIM tokens through ``--override-kv`` (llama.cpp
reads them as if the GGUF said so). The model was not trained for FIM, so the tests check the request path and
the token layout, not the quality of the infill."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from conformance.reference import validate_openai
from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

FIM_PRE, FIM_SUF, FIM_MID = 11, 12, 13  # <jupyter_start>, <jupyter_text>, <jupyter_code> in SmolLM2's vocabulary
PREFIX = "def area(width, height):\n    "
SUFFIX = "\n    return result\n"


@pytest.fixture(scope="module")
def fim_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    base = tmp_path_factory.mktemp("fim")
    overrides = [f"tokenizer.ggml.fim_pre_token_id=int:{FIM_PRE}", f"tokenizer.ggml.fim_suf_token_id=int:{FIM_SUF}",
                 f"tokenizer.ggml.fim_mid_token_id=int:{FIM_MID}"]
    args = [DEFAULT_MODEL, "--parallel", "2", "--ctx-size", "2048"]
    for item in overrides:
        args += ["--override-kv", item]
    running = start_server(args, base / "serve.log")
    yield running
    stop_server(running)


@pytest.fixture
def http(fim_server: RunningServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=fim_server.base_url, timeout=120) as client:
        yield client


def _tokens(http: httpx.Client, text: str) -> list[int]:
    reply = http.post("/v1/tokenize", json={"model": DEFAULT_MODEL, "content": text, "add_special": False})
    assert reply.status_code == 200, reply.text
    return [int(t) for t in reply.json()["tokens"]]


def _fim(http: httpx.Client, prefix: str, suffix: str, **extra: Any) -> dict[str, Any]:
    body = {"model": DEFAULT_MODEL, "prompt": prefix, "suffix": suffix, "max_tokens": 8, "temperature": 0, **extra}
    reply = http.post("/v1/completions", json=body)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def test_model_reports_fim_from_its_metadata(http: httpx.Client) -> None:
    model = http.get(f"/v1/models/{DEFAULT_MODEL}").json()
    assert model["capabilities"]["dialect"]["fim"] is True


def test_fim_completion_with_the_openai_sdk(fim_server: RunningServer) -> None:
    client = openai.OpenAI(base_url=fim_server.base_url + "/v1", api_key="unused")
    reply = client.completions.create(model=DEFAULT_MODEL, prompt=PREFIX, suffix=SUFFIX, max_tokens=8, temperature=0)
    validate_openai("CreateCompletionResponse", reply.model_dump(exclude_unset=True))
    assert reply.choices[0].finish_reason in ("stop", "length")
    assert reply.usage is not None and reply.usage.completion_tokens <= 8
    extra = reply.model_extra or {}
    assert extra["superfluid"]["expired"] is False
    assert extra["superfluid"]["served_by"] == DEFAULT_MODEL


def test_prompt_is_the_fim_token_layout(http: httpx.Client) -> None:
    reply = _fim(http, PREFIX, SUFFIX)
    assert reply["usage"]["prompt_tokens"] == len(_tokens(http, PREFIX)) + len(_tokens(http, SUFFIX)) + 3


def _shared(a: list[int], b: list[int]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def test_psm_puts_the_prefix_first_and_spm_the_suffix(http: httpx.Client) -> None:
    # The prefix cache shows the order: with psm, a new suffix after the same prefix reuses <pre> prefix <suf>
    # (and whatever the two suffixes share); with spm, a new prefix after the same suffix reuses <suf> suffix <pre>.
    other_suffix = "\n    print(result)\n"
    _fim(http, PREFIX, SUFFIX)
    psm = _fim(http, PREFIX, other_suffix)
    shared = _shared(_tokens(http, SUFFIX), _tokens(http, other_suffix))
    assert psm["superfluid"]["cached"] == len(_tokens(http, PREFIX)) + 2 + shared
    other_prefix = "class Box:\n    "
    _fim(http, PREFIX, SUFFIX, fim_mode="spm")
    spm = _fim(http, other_prefix, SUFFIX, fim_mode="spm")
    shared = _shared(_tokens(http, PREFIX), _tokens(http, other_prefix))
    assert spm["superfluid"]["cached"] == len(_tokens(http, SUFFIX)) + 2 + shared


def test_fim_streams_the_same_text(http: httpx.Client) -> None:
    body = {"model": DEFAULT_MODEL, "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 6, "temperature": 0,
            "stream": True}
    frames = []
    with http.stream("POST", "/v1/completions", json=body) as reply:
        assert reply.status_code == 200
        for line in reply.iter_lines():
            if line.startswith("data: {"):
                frames.append(json.loads(line[6:]))
    # OpenAI's schema holds finish_reason non-null, which only the terminal chunk of a stream is.
    validate_openai("CreateCompletionResponse", frames[-1])
    choices = [frame["choices"][0] for frame in frames if frame["choices"]]
    assert choices[-1]["finish_reason"] in ("stop", "length")
    assert all(choice["finish_reason"] is None for choice in choices[:-1])
    plain = _fim(http, PREFIX, SUFFIX, max_tokens=6)
    assert "".join(choice["text"] for choice in choices) == plain["choices"][0]["text"]


@pytest.mark.parametrize("field,value", [("echo", True), ("logprobs", 2)])
def test_fim_refuses_echo_and_logprobs(http: httpx.Client, field: str, value: Any) -> None:
    body = {"model": DEFAULT_MODEL, "prompt": PREFIX, "suffix": SUFFIX, field: value}
    reply = http.post("/v1/completions", json=body)
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert error["code"] == "unsupported_parameter"
    assert error["param"] == field
