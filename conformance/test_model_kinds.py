"""Capability records of the three bundled model kinds (chat, embedding, Whisper) in /v1/models, /props,
/api/show and /api/tags, on a plain `superfluid serve` that lists all three."""

from __future__ import annotations

import httpx

from conformance.reference import validate_ollama

CHAT, EMBEDDER, WHISPER = "smollm2-135m-instruct", "all-minilm-l6-v2", "whisper-base"
EXPECTED = {
    CHAT: ("llamacpp", {"generation": True, "embedding": False}, False, ["text"]),
    EMBEDDER: ("llamacpp", {"generation": False, "embedding": True}, False, ["text"]),
    WHISPER: ("whisper", {"generation": False, "embedding": False}, True, ["audio"]),
}


def test_plain_serve_lists_all_three_kinds(media_http: httpx.Client) -> None:
    listing = media_http.get("/v1/models").json()["data"]
    assert [m["id"] for m in listing] == [CHAT, EMBEDDER, WHISPER]
    for entry in listing:
        runtime, workload, whisper, modalities = EXPECTED[entry["id"]]
        assert entry["runtime"] == runtime
        assert entry["capabilities"]["workload"] == workload
        assert entry["capabilities"]["modalities"]["whisper_transcription"] is whisper
        assert entry["capabilities"]["modalities"]["whisper_translation"] is whisper
        assert entry["architecture"]["input_modalities"] == modalities
    assert listing[1]["capabilities"]["pooling"] == "mean" and listing[1]["meta"]["n_ctx"] == 512


def test_props_carry_the_same_records(media_http: httpx.Client) -> None:
    for model_id, (runtime, workload, _, _) in EXPECTED.items():
        props = media_http.get("/props", params={"model": model_id}).json()
        entry = media_http.get(f"/v1/models/{model_id}").json()
        assert props["runtime"] == runtime
        assert props["capabilities"] == entry["capabilities"]
        assert props["capabilities"]["workload"] == workload
    # --flash-attn auto: off for the chat model (this server has one lane, which attends only to its own cells),
    # llama.cpp's choice for the embedder; nothing for Whisper, which llama.cpp does not run
    flash = {model_id: media_http.get("/props", params={"model": model_id}).json().get("flash_attention")
             for model_id in EXPECTED}
    assert flash == {CHAT: "off", EMBEDDER: "auto", WHISPER: None}


def test_ollama_tags_and_show(media_http: httpx.Client) -> None:
    tags = media_http.get("/api/tags").json()
    validate_ollama("ListResponse", tags)
    named = {m["name"]: m["capabilities"] for m in tags["models"]}
    assert named == {CHAT: ["completion", "tools"], EMBEDDER: ["embedding"],
                     WHISPER: ["transcription", "translation"]}
    # A request loads the model, then /api/show reports its capabilities and runtime.
    assert media_http.post("/api/embed", json={"model": EMBEDDER, "input": "load"}).status_code == 200
    shown = media_http.post("/api/show", json={"model": EMBEDDER}).json()
    validate_ollama("ShowResponse", shown)
    assert shown["capabilities"] == ["embedding"]
    assert shown["model_info"]["superfluid.runtime"] == "llamacpp"
    assert "template" not in shown
    speech = media_http.post("/api/show", json={"model": WHISPER}).json()
    assert speech["model_info"]["superfluid.runtime"] == "whisper"
    assert speech["details"]["format"] == "ctranslate2"
