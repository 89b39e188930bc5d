"""GPU offload on a real backend device: the bundled model on Mesa's software Vulkan device (lavapipe, ``Vulkan0``).

Every server here first shows, through ``GET /v1/models``, how many layers llama.cpp put on ``Vulkan0`` and how
many bytes it holds there: a test that forgot ``GGML_VK_VISIBLE_DEVICES`` would run on the CPU and fail on that
line. Greedy replies are compared with the same request on the CPU backend of the same build (``--device none``),
up to a near tie (conformance/near_tie.py): the GPU kernels sum in another order. lavapipe decodes the bundled
model at a few tokens a second and reports its heap as all free, so the requests are few and short, and what
fits is steered with ``--fit-target`` against superfluid's own count of what it placed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gguf
import httpx
import pytest

from conformance.near_tie import same_up_to_a_near_tie
from conformance.random_models import bundled_gguf
from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

VULKAN = "Vulkan0"
ENV = {"GGML_VK_VISIBLE_DEVICES": "0"}
WINDOW = ["-c", "1024", "--parallel", "1"]
"""A small window keeps the KV cells and the test's requests cheap on a software device."""
QUESTION = "What is the capital of France?"
MIB = 1024 * 1024


def serve(tmp: Path, name: str, *flags: str, model: list[str] | None = None) -> RunningServer:
    folder = tmp / name
    folder.mkdir(parents=True, exist_ok=True)
    models = model if model is not None else [DEFAULT_MODEL]
    return start_server([*models, *WINDOW, *flags], folder / "serve.log", env=ENV, timeout_s=300)


def offload(http: httpx.Client, model: str = DEFAULT_MODEL) -> dict[str, Any]:
    described = http.get(f"/v1/models/{model}").json()
    assert described["loaded"], described
    return dict(described["meta"]["offload"])


def on(placed: dict[str, Any], device: str) -> dict[str, int]:
    return next((d for d in placed["devices"] if d["name"] == device), {})


def ask(http: httpx.Client, question: str = QUESTION, model: str = DEFAULT_MODEL, **extra: Any) -> dict[str, Any]:
    response = http.post("/v1/chat/completions", json={
        "model": model, "messages": [{"role": "user", "content": question}], "max_tokens": 8, "temperature": 0,
        "logprobs": True, "top_logprobs": 2, **extra})
    assert response.status_code == 200, response.text
    return dict(response.json())


def layer_weights() -> dict[int | str, int]:
    """Bytes of each layer's tensors in the bundled GGUF (read with the gguf package, not superfluid's reader):
    the repeating layers by index, ``output`` for the output layer (the tied embeddings' copy included)."""
    reader = gguf.GGUFReader(bundled_gguf())
    sizes: dict[int | str, int] = {}
    for tensor in reader.tensors:
        name = tensor.name
        key: int | str = int(name.split(".")[1]) if name.startswith("blk.") else (
            "output" if name.startswith("output") else "input")
        sizes[key] = sizes.get(key, 0) + int(tensor.n_bytes)
    if not any(t.name == "output.weight" for t in reader.tensors):
        sizes["output"] = sizes.get("output", 0) + sizes["input"]  # tied: llama.cpp copies them to the output
    return sizes


@pytest.fixture(scope="module")
def cpu_reply(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The reply of the same build's CPU backend (``--device none``): no layer and no byte on Vulkan0."""
    server = serve(tmp_path_factory.mktemp("gpu"), "cpu", "--device", "none")
    try:
        with httpx.Client(base_url=server.base_url, timeout=600) as http:
            placed = offload(http)
            assert placed["layers"] == 0 and not on(placed, VULKAN), placed
            yield ask(http)
    finally:
        stop_server(server)


@pytest.mark.parametrize(("flags", "layers"), [
    ((), "all"),
    (("-ngl", "10"), 10),
    (("--no-kv-offload",), "all"),
    (("--override-tensor", r"ffn_(up|down|gate)=CPU"), "all"),
])
def test_layers_go_to_the_device_and_the_reply_is_the_cpus(flags: tuple[str, ...], layers: int | str,
                                                           cpu_reply: dict[str, Any],
                                                           tmp_path: Path) -> None:
    server = serve(tmp_path, "gpu", *flags)
    try:
        with httpx.Client(base_url=server.base_url, timeout=600) as http:
            placed = offload(http)
            device = on(placed, VULKAN)
            assert placed["layers"] > 0 and device.get("bytes", 0) > 0, placed  # the offload is real
            expected = placed["of"] if layers == "all" else layers
            assert placed["layers"] == expected, placed
            reply = ask(http)
    finally:
        stop_server(server)
    sizes = layer_weights()
    # The last `expected` of the layers go to the device, the output layer (index of - 1) counting as one.
    offloaded = [*range(placed["of"] - expected, placed["of"] - 1), "output"]
    weights = sum(sizes[key] for key in offloaded)
    if "--override-tensor" in flags:
        assert device["weights_bytes"] < weights // 2  # the feed-forward weights stayed on the CPU
    else:  # what llama.cpp reports (buffer sizes, to 0.01 MiB) is the offloaded layers' tensors
        assert abs(device["weights_bytes"] - weights) <= 0.01 * MIB + 64 * len(offloaded) * 16, (device, weights)
    if "--no-kv-offload" in flags:
        assert device["kv_bytes"] == 0 and on(placed, "CPU")["kv_bytes"] > 0
    else:
        assert device["kv_bytes"] > 0
    same_up_to_a_near_tie(reply, cpu_reply)


def test_auto_offloads_what_fits_beside_the_margin(tmp_path: Path) -> None:
    """``--fit-target`` leaves all but 168 MiB of the 2 GiB heap free: only part of the model fits."""
    server = serve(tmp_path, "partial", "--fit-target", "1880")
    try:
        with httpx.Client(base_url=server.base_url, timeout=600) as http:
            placed = offload(http)
            ps = http.get("/api/ps").json()["models"][0]
            metrics = http.get("/metrics").text
    finally:
        stop_server(server)
    assert 0 < placed["layers"] < placed["of"], placed
    assert on(placed, VULKAN)["bytes"] <= 168 * MIB
    assert "fit" in placed["note"]
    assert ps["size_vram"] == on(placed, VULKAN)["bytes"] and ps["size"] > ps["size_vram"]
    assert f'superfluid_model_device_bytes{{device="{VULKAN}",model="{DEFAULT_MODEL}"}}' in metrics
    assert f'superfluid_device_memory_total_bytes{{device="{VULKAN}",type="gpu"}}' in metrics


def test_an_explicit_count_that_cannot_fit_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """Every layer with 131,072 cells of KV: about 3 GiB, over the device's 2 GiB."""
    done = subprocess.run([sys.executable, "-m", "superfluid.cli", "serve", DEFAULT_MODEL, "-ngl", "all", "-c",
                           "131072", "--sessions", str(tmp_path / "s")], capture_output=True, text=True,
                          timeout=300, env={**os.environ, **ENV})
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("superfluid:")]
    assert len(lines) == 1 and "-ngl all needs about" in lines[0] and f"on {VULKAN}" in lines[0], done.stderr
    assert "MiB free" in lines[0]


def test_a_second_model_unloads_the_first_where_only_one_fits(tmp_path: Path) -> None:
    """Two aliases of the bundled model, each about 215 MiB on the device, with room for one (--fit-target)."""
    models = tmp_path / "models.toml"
    models.write_text(f'[[models]]\nmodel = "{DEFAULT_MODEL}"\nalias = "first"\n\n'
                      f'[[models]]\nmodel = "{DEFAULT_MODEL}"\nalias = "second"\n')
    server = serve(tmp_path, "two", "--models", str(models), "--fit-target", "1748", model=[])
    try:
        with httpx.Client(base_url=server.base_url, timeout=600) as http:
            assert offload(http, "first")["layers"] > 0
            second = ask(http, "Name a colour.", model="second")
            after_second = {m["id"]: m["loaded"] for m in http.get("/v1/models").json()["data"]}
            placed = offload(http, "second")
            first = ask(http, "Name a colour.", model="first")
            after_first = {m["id"]: m["loaded"] for m in http.get("/v1/models").json()["data"]}
            load = http.post("/v1/models/load", json={"model": DEFAULT_MODEL, "alias": "third", "n_gpu_layers": "all",
                                                      "ctx_size": 131072})
    finally:
        stop_server(server)
    assert after_second["second"] and not after_second["first"], after_second
    assert placed["layers"] == placed["of"]  # it got the whole device, not a part of it
    assert after_first["first"] and not after_first["second"], after_first
    assert second["choices"][0]["message"]["content"] and first["choices"][0]["message"]["content"]
    assert load.status_code == 400, load.text
    error = load.json()["error"]
    assert error["code"] == "insufficient_device_memory" and error["param"] == "n_gpu_layers", error


def test_the_disk_tier_saves_and_restores_cells_that_live_on_the_device(tmp_path: Path) -> None:
    flags = ("--kv-disk-min-tokens", "64", "--sessions", str(tmp_path / "sessions"))
    # The tier saves lanes of at least one 64-token block: a prompt of about 80 tokens.
    question = ("I am planning a slow trip through Europe next spring and I would like to follow its great rivers "
                "from their sources to the sea. Name three rivers in Europe that I could follow by boat or by bike.")
    server = serve(tmp_path, "before", *flags)
    try:
        with httpx.Client(base_url=server.base_url, timeout=600) as http:
            assert on(offload(http), VULKAN)["kv_bytes"] > 0
            first = ask(http, question)
    finally:
        stop_server(server)  # a clean stop saves the lane's cells from the device
    server = serve(tmp_path, "after", *flags)
    try:
        with httpx.Client(base_url=server.base_url, timeout=600) as http:
            again = ask(http, question)
            disk = http.get("/slots").json()[0]["kv_disk"]
    finally:
        stop_server(server)
    assert disk["restores"] >= 1, json.dumps(disk)
    assert again["usage"]["prompt_tokens_details"]["cached_tokens"] == again["usage"]["prompt_tokens"] - 1
    same_up_to_a_near_tie(again, first)
