"""Embeddings and rerank on the bundled all-MiniLM-L6-v2, through the openai SDK, the ollama client and httpx,
against a plain `superfluid serve` (the README's command)."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import httpx
import numpy as np
import ollama
import pytest
from openai import BadRequestError, OpenAI

from conformance.reference import validate_ollama, validate_openai
from conformance.server import RunningServer

EMBEDDER = "all-minilm-l6-v2"
CHAT = "smollm2-135m-instruct"
WHISPER = "whisper-base"

# (anchor, related, unrelated...): the related sentence must score above every unrelated one.
LABELLED = [
    ("The cat sat on the mat", "A cat is sitting on a mat", ["Stock markets fell sharply today",
                                                             "The recipe needs two cups of flour"]),
    ("How do I reset my password?", "I forgot my login password and need to change it",
     ["The train to Berlin leaves at noon", "Whales are the largest mammals"]),
    ("The weather will be rainy tomorrow", "Expect showers and clouds on the next day",
     ["She plays the violin in an orchestra", "Compile the program with optimizations"]),
    ("A man is playing guitar on stage", "A musician performs a song with his guitar",
     ["The bank raised interest rates", "Children are building a sandcastle"]),
]


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_float_and_base64_decode_to_the_same_vectors(media_openai: OpenAI, media_http: httpx.Client) -> None:
    texts = ["first sentence", "a second, longer sentence about embeddings"]
    floats = media_openai.embeddings.create(model=EMBEDDER, input=texts, encoding_format="float")
    validate_openai("CreateEmbeddingResponse", floats.model_dump(exclude_none=True))
    raw = media_http.post("/v1/embeddings", json={"model": EMBEDDER, "input": texts, "encoding_format": "base64"})
    assert raw.status_code == 200, raw.text
    decoded = [np.frombuffer(base64.b64decode(d["embedding"]), dtype="<f4") for d in raw.json()["data"]]
    assert [d.index for d in floats.data] == [0, 1]
    for item, vector in zip(floats.data, decoded, strict=True):
        assert len(item.embedding) == 384
        np.testing.assert_allclose(np.array(item.embedding, dtype=np.float32), vector, rtol=0, atol=1e-6)
    assert floats.usage.prompt_tokens == floats.usage.total_tokens > 4
    # Naming no format, the SDK asks for base64 itself and decodes it: the same floats again.
    via_sdk = media_openai.embeddings.create(model=EMBEDDER, input=texts)
    np.testing.assert_allclose(np.array(via_sdk.data[1].embedding, dtype=np.float32), decoded[1], atol=1e-6)


def test_vectors_are_pooled_not_normalized(media_openai: OpenAI) -> None:
    vector = np.array(media_openai.embeddings.create(model=EMBEDDER, input="The cat sat on the mat").data[0].embedding)
    assert abs(float(np.linalg.norm(vector)) - 1.0) > 0.05


def test_related_pairs_score_above_unrelated(media_openai: OpenAI) -> None:
    for anchor, related, unrelated in LABELLED:
        reply = media_openai.embeddings.create(model=EMBEDDER, input=[anchor, related, *unrelated])
        vectors = [np.array(d.embedding) for d in reply.data]
        close = _cosine(vectors[0], vectors[1])
        for other in vectors[2:]:
            assert close > _cosine(vectors[0], other), (anchor, related)


def test_token_arrays_and_dimensions(media_openai: OpenAI) -> None:
    tokens = [101, 1996, 4937, 2938, 2006, 1996, 13523, 102]  # [CLS] the cat sat on the mat [SEP]
    by_text = media_openai.embeddings.create(model=EMBEDDER, input="The cat sat on the mat").data[0].embedding
    by_ids = media_openai.embeddings.create(model=EMBEDDER, input=[tokens]).data[0].embedding
    np.testing.assert_allclose(by_ids, by_text, atol=1e-5)
    single = media_openai.embeddings.create(model=EMBEDDER, input=tokens).data
    assert len(single) == 1
    short = media_openai.embeddings.create(model=EMBEDDER, input="The cat sat on the mat",
                                           dimensions=32).data[0].embedding
    np.testing.assert_allclose(short, by_text[:32], atol=1e-6)


def test_ollama_embed_is_normalized_and_embeddings_is_not(media_server: RunningServer) -> None:
    client = ollama.Client(host=media_server.base_url)
    embedded = client.embed(model=EMBEDDER, input=["The cat sat on the mat", "Stock markets fell"])
    assert len(embedded.embeddings) == 2
    for vector in embedded.embeddings:
        assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-4
    assert (embedded.prompt_eval_count or 0) > 4
    shortened = client.embed(model=f"{EMBEDDER}:latest", input="The cat sat on the mat", dimensions=64)
    assert len(shortened.embeddings[0]) == 64
    assert abs(float(np.linalg.norm(shortened.embeddings[0])) - 1.0) < 1e-4
    legacy = client.embeddings(model=EMBEDDER, prompt="The cat sat on the mat").embedding
    assert abs(float(np.linalg.norm(legacy)) - 1.0) > 0.05
    np.testing.assert_allclose(np.array(legacy) / np.linalg.norm(legacy), embedded.embeddings[0], atol=1e-4)


def test_ollama_bodies_match_the_reference(media_http: httpx.Client) -> None:
    reply = media_http.post("/api/embed", json={"model": EMBEDDER, "input": "hello"})
    assert reply.status_code == 200, reply.text
    validate_ollama("EmbedResponse", reply.json())
    preload = media_http.post("/api/embed", json={"model": EMBEDDER, "input": []})
    assert preload.status_code == 200 and preload.json()["embeddings"] == []


def test_ollama_truncate_false_refuses_oversized_input(media_http: httpx.Client) -> None:
    long = "word " * 700
    refused = media_http.post("/api/embed", json={"model": EMBEDDER, "input": ["ok", long], "truncate": False})
    assert refused.status_code == 400 and "input[1]" in refused.json()["error"]
    cut = media_http.post("/api/embed", json={"model": EMBEDDER, "input": ["ok", long]})
    assert cut.status_code == 200 and cut.json()["prompt_eval_count"] == 3 + 512


# ---- rerank -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/rerank", "/v1/reranking", "/rerank"])
def test_rerank_orders_by_similarity(media_http: httpx.Client, path: str) -> None:
    documents = ["Stock markets fell sharply today", {"text": "A cat is sitting on a mat"}, "Cats like warm places"]
    reply = media_http.post(path, json={"model": EMBEDDER, "query": "The cat sat on the mat", "documents": documents,
                                 "return_documents": True})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    order = [r["index"] for r in body["results"]]
    assert order[0] == 1 and order[-1] == 0
    scores = [r["relevance_score"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True)
    assert body["results"][0]["document"] == {"text": "A cat is sitting on a mat"}
    assert body["usage"]["prompt_tokens"] > 10
    top = media_http.post(path, json={"model": EMBEDDER, "query": "The cat sat on the mat", "documents": documents,
                               "top_n": 1}).json()["results"]
    assert [r["index"] for r in top] == [1] and "document" not in top[0]


# ---- errors -----------------------------------------------------------------------------------------


def _error(reply: httpx.Response, status: int = 400) -> dict[str, str]:
    assert reply.status_code == status, reply.text
    error: dict[str, str] = reply.json()["error"]
    return error


def test_oversized_input_names_its_index(media_http: httpx.Client) -> None:
    error = _error(media_http.post("/v1/embeddings", json={"model": EMBEDDER, "input": ["fine", "word " * 700]}))
    assert error["code"] == "context_length_exceeded" and error["param"] == "input[1]"


def test_empty_string_is_refused(media_openai: OpenAI) -> None:
    with pytest.raises(BadRequestError) as caught:
        media_openai.embeddings.create(model=EMBEDDER, input=["fine", ""])
    assert "input[1]" in str(caught.value)


@pytest.mark.parametrize("documents", [[], [1, 2], ["ok", {"title": "no text"}], "not a list"])
def test_invalid_documents(media_http: httpx.Client, documents: object) -> None:
    error = _error(media_http.post("/v1/rerank", json={"model": EMBEDDER, "query": "q", "documents": documents}))
    assert error["param"] is not None and error["param"].startswith("documents")


@pytest.mark.parametrize("model", [CHAT, WHISPER])
def test_models_that_do_not_embed(media_http: httpx.Client, model: str) -> None:
    for path, body in (("/v1/embeddings", {"input": "x"}), ("/v1/rerank", {"query": "q", "documents": ["d"]})):
        error = _error(media_http.post(path, json={"model": model, **body}))
        assert error["code"] == "unsupported_model" and error["param"] == "model"
    refused = media_http.post("/api/embed", json={"model": model, "input": "x"})
    assert refused.status_code == 400 and "serves" in refused.json()["error"]


def test_embedding_model_does_not_chat(media_http: httpx.Client) -> None:
    body = {"model": EMBEDDER, "messages": [{"role": "user", "content": "hi"}]}
    assert _error(media_http.post("/v1/chat/completions", json=body))["code"] == "unsupported_model"


def test_over_the_body_limit_is_413(media_http: httpx.Client) -> None:
    big = b'{"model": "' + EMBEDDER.encode() + b'", "input": "' + b"a" * (101 * 1024 * 1024) + b'"}'
    reply = media_http.post("/v1/embeddings", content=big, headers={"content-type": "application/json"})
    assert reply.status_code == 413


# ---- a chat model under --embedding --pooling -------------------------------------------------------


@pytest.fixture(scope="module")
def pooled_chat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from conformance.server import start_server, stop_server

    running = start_server([CHAT, "--embedding", "--pooling", "mean", "--parallel", "1"],
                           tmp_path_factory.mktemp("pooled") / "serve.log")
    try:
        yield running.base_url
    finally:
        stop_server(running)


def test_chat_model_embeds_under_embedding_and_pooling(pooled_chat: str) -> None:
    with httpx.Client(base_url=pooled_chat, timeout=120) as pooled:
        listed = pooled.get(f"/v1/models/{CHAT}").json()
        assert listed["capabilities"]["workload"] == {"generation": False, "embedding": True}
        assert listed["capabilities"]["pooling"] == "mean"
        reply = pooled.post("/v1/embeddings", json={"model": CHAT, "input": ["one", "two words"]})
        assert reply.status_code == 200, reply.text
        assert len(reply.json()["data"][0]["embedding"]) == 576
