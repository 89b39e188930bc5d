"""Files and batches through the official openai SDK against the real server (one module-scoped server with a
small file quota and a key policy): upload, list, retrieve, download and delete files; a 50-line batch of chat,
embedding and malformed lines whose output and error files match the input's custom_ids one to one; a malformed
input file; the quota's 413, the queue's 429, cancelling, a file a running batch reads, a batch's completion
window, and per-key visibility (a batch's lines run as the key that created it)."""

from __future__ import annotations

import io
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai import OpenAI
from openai.types import Batch

from conformance.reference import validate_openai
from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

EMBEDDER = "all-minilm-l6-v2"
QUOTA = 256 * 1024
ENDED = ("completed", "failed", "cancelled", "expired")
ALICE, BOB, CAROL = "alice-k3y", "bob-k3y", "carol-k3y"
POLICY = f"""
[[keys]]
id = "alice"
key = "{ALICE}"
max_concurrent = 1

[[keys]]
id = "bob"
key = "{BOB}"

[[keys]]
id = "carol"
key = "{CAROL}"
models = ["{DEFAULT_MODEL}"]
"""


OPERATOR_SAMPLING = ["--temp", "0"]
"""The operator's sampling flags: greedy for every interactive request that names no temperature. Batch lines keep
the model's defaults (each line here that should be greedy says temperature 0 itself)."""


@pytest.fixture(scope="module")
def batch_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    base = tmp_path_factory.mktemp("batches")
    (base / "policy.toml").write_text(POLICY)
    running = start_server([DEFAULT_MODEL, EMBEDDER, "--parallel", "2", "--ctx-size", "2048", "--threads", "1",
                            "--files-max-bytes", str(QUOTA), "--files-expiry", "1h",
                            "--key-policy", str(base / "policy.toml"), *OPERATOR_SAMPLING], base / "server.log")
    yield running
    stop_server(running)


def client_for(server: RunningServer, key: str) -> OpenAI:
    return OpenAI(base_url=server.base_url + "/v1", api_key=key, max_retries=0, timeout=120)


@pytest.fixture(scope="module")
def sdk(batch_server: RunningServer) -> OpenAI:
    """Alice's client: her key allows one request at a time, which her batches' lines do not count against."""
    return client_for(batch_server, ALICE)


def jsonl(lines: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def chat_line(custom_id: str, text: str, max_tokens: int = 4, **extra: Any) -> dict[str, Any]:
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions",
            "body": {"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": text}],
                     "max_tokens": max_tokens, "temperature": 0, **extra}}


def upload(sdk: OpenAI, lines: list[dict[str, Any]], name: str = "input.jsonl") -> str:
    return sdk.files.create(file=(name, io.BytesIO(jsonl(lines))), purpose="batch").id


def wait_until_ended(sdk: OpenAI, batch_id: str, timeout_s: float = 300) -> Batch:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        batch = sdk.batches.retrieve(batch_id)
        if batch.status in ENDED:
            return batch
        time.sleep(0.5)
    raise AssertionError(f"batch {batch_id} did not end in {timeout_s}s: {sdk.batches.retrieve(batch_id)}")


def read_jsonl(sdk: OpenAI, file_id: str | None) -> list[dict[str, Any]]:
    if file_id is None:
        return []
    return [json.loads(line) for line in sdk.files.content(file_id).text.splitlines() if line.strip()]


def test_files_upload_list_retrieve_content_and_delete(sdk: OpenAI) -> None:
    data = b"some user data\n" * 10
    created = sdk.files.create(file=("notes.txt", io.BytesIO(data)), purpose="user_data",
                               expires_after={"anchor": "created_at", "seconds": 7200})
    validate_openai("OpenAIFile", created.model_dump(exclude_none=True))
    assert created.id.startswith("file-") and created.bytes == len(data) and created.filename == "notes.txt"
    assert created.purpose == "user_data" and created.expires_at == created.created_at + 7200
    plain = sdk.files.create(file=("plain.txt", io.BytesIO(b"x")), purpose="assistants")
    assert plain.expires_at == plain.created_at + 3600  # --files-expiry 1h
    assert sdk.files.retrieve(created.id).model_dump() == created.model_dump()
    assert sdk.files.content(created.id).content == data
    listed = sdk.files.list(purpose="user_data")
    validate_openai("ListFilesResponse", listed.model_dump(exclude_none=True))
    assert created.id in [f.id for f in listed.data] and plain.id not in [f.id for f in listed.data]
    newest_first = [f.id for f in sdk.files.list().data]
    assert newest_first.index(plain.id) < newest_first.index(created.id)
    page = sdk.files.list(limit=1, order="asc", after=created.id)
    assert [f.id for f in page.data] == [plain.id] or page.data[0].created_at >= created.created_at
    deleted = sdk.files.delete(created.id)
    assert deleted.deleted and deleted.id == created.id
    with pytest.raises(openai.NotFoundError):
        sdk.files.retrieve(created.id)
    with pytest.raises(openai.NotFoundError):
        sdk.files.content(created.id)
    with pytest.raises(openai.BadRequestError):
        sdk.files.create(file=("x.txt", io.BytesIO(b"x")), purpose="vision")  # type: ignore[arg-type]


def test_an_upload_past_the_quota_is_a_413_and_stores_nothing(sdk: OpenAI, batch_server: RunningServer) -> None:
    before = {f.id for f in sdk.files.list().data}
    with pytest.raises(openai.APIStatusError) as refused:
        sdk.files.create(file=("big.bin", io.BytesIO(b"\0" * (QUOTA + 1))), purpose="user_data")
    assert refused.value.status_code == 413
    assert refused.value.code == "files_quota_exceeded"
    assert {f.id for f in sdk.files.list().data} == before
    leftovers = [p for p in (Path(str(batch_server.log_path.parent)) / "sessions" / "files").iterdir()
                 if p.name.startswith(".")]
    assert leftovers == []



def test_an_upload_that_cannot_fit_is_refused_before_its_body_is_sent(batch_server: RunningServer) -> None:
    """Only the request head goes out: the 413 comes back at once, without waiting for a body."""
    host, port = batch_server.base_url.removeprefix("http://").split(":")
    head = (f"POST /v1/files HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {ALICE}\r\n"
            f"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: {10 * QUOTA}\r\n\r\n")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(head.encode())
        reply = b""
        while b"files_quota_exceeded" not in reply:
            chunk = conn.recv(65536)
            if not chunk:
                break
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 413") and b"files_quota_exceeded" in reply, reply[:300]


def test_a_mixed_batch_of_50_lines_matches_its_output_and_error_files(sdk: OpenAI) -> None:
    lines: list[dict[str, Any]] = []
    for i in range(50):
        if i % 5 == 3:
            lines.append({"custom_id": f"embed-{i}", "method": "POST", "url": "/v1/embeddings",
                          "body": {"model": EMBEDDER, "input": f"sentence number {i}"}})
        elif i % 7 == 6:  # a bad request: it runs, and its 400 goes to the error file
            lines.append({"custom_id": f"bad-{i}", "method": "POST", "url": "/v1/chat/completions",
                          "body": {"model": DEFAULT_MODEL, "messages": "not a list"}})
        elif i == 10:
            lines.append({"custom_id": "unknown-model", "method": "POST", "url": "/v1/chat/completions",
                          "body": {"model": "no-such-model", "messages": [{"role": "user", "content": "hi"}]}})
        else:
            lines.append(chat_line(f"chat-{i}", f"Count to {i}."))
    input_id = upload(sdk, lines)
    batch = sdk.batches.create(input_file_id=input_id, endpoint="/v1/chat/completions", completion_window="24h",
                               metadata={"purpose": "test"})
    assert batch.status == "validating" and batch.id.startswith("batch_")
    validate_openai("Batch", batch.model_dump(exclude_none=True))
    done = wait_until_ended(sdk, batch.id)
    validate_openai("Batch", done.model_dump(exclude_none=True))
    assert done.status == "completed", done
    assert done.metadata == {"purpose": "test"}
    assert done.in_progress_at and done.finalizing_at and done.completed_at
    outputs, errors = read_jsonl(sdk, done.output_file_id), read_jsonl(sdk, done.error_file_id)
    bad = {line["custom_id"] for line in lines if line["custom_id"].startswith(("bad-", "unknown-"))}
    assert done.request_counts is not None
    assert (done.request_counts.total, done.request_counts.completed, done.request_counts.failed) == (
        50, 50 - len(bad), len(bad))
    # One to one, in input order: every custom_id once, successes in the output file, failures in the error file.
    order = [line["custom_id"] for line in lines]
    assert [o["custom_id"] for o in outputs] == [c for c in order if c not in bad]
    assert [e["custom_id"] for e in errors] == [c for c in order if c in bad]
    for out in outputs:
        assert out["id"].startswith("batch_req_") and out["error"] is None
        assert out["response"]["status_code"] == 200
        body = out["response"]["body"]
        if out["custom_id"].startswith("embed-"):
            assert body["object"] == "list" and len(body["data"][0]["embedding"]) == 384
        else:
            assert body["object"] == "chat.completion" and body["usage"]["completion_tokens"] <= 4
    for err in errors:
        status = err["response"]["status_code"]
        assert status == (404 if err["custom_id"] == "unknown-model" else 400)
        assert err["response"]["body"]["error"]["message"]
    assert sdk.files.retrieve(done.output_file_id or "").purpose == "batch_output"
    assert batch.id in [b.id for b in sdk.batches.list(limit=100).data]


def test_lines_without_max_tokens_are_capped_and_use_the_default_model(sdk: OpenAI) -> None:
    line = {"custom_id": "uncapped", "method": "POST", "url": "/v1/chat/completions",
            "body": {"messages": [{"role": "user", "content": "Say yes."}], "temperature": 0, "stop": ["\n"]}}
    done = wait_until_ended(sdk, sdk.batches.create(input_file_id=upload(sdk, [line]),
                                                    endpoint="/v1/chat/completions", completion_window="24h").id)
    [out] = read_jsonl(sdk, done.output_file_id)
    assert out["response"]["body"]["model"] == DEFAULT_MODEL
    assert out["response"]["body"]["usage"]["completion_tokens"] <= 2048


UNSET_SAMPLING = {"model": DEFAULT_MODEL, "n": 3, "max_tokens": 16, "seed": 11, "logprobs": True, "top_logprobs": 1,
                  "messages": [{"role": "user", "content": "Tell me about a strange dream you had."}]}


def _off_the_top(choices: list[dict[str, Any]]) -> int:
    """How many tokens of the choices were not the likeliest at their step (0 for a greedy reply)."""
    return sum(step["logprob"] < step["top_logprobs"][0]["logprob"]
               for choice in choices for step in choice["logprobs"]["content"])


def test_the_operators_temperature_is_the_default_for_requests_but_not_for_batch_lines(
        sdk: OpenAI, batch_server: RunningServer) -> None:
    """--temp 0: a request that names no temperature is greedy (every token of three choices the likeliest) and
    /props says so; the same body as a batch line samples at the model's own default."""
    props = httpx.get(batch_server.base_url + "/props", headers={"Authorization": f"Bearer {ALICE}"}).json()
    assert props["default_generation_settings"]["params"]["temperature"] == 0
    reply = sdk.chat.completions.create(**UNSET_SAMPLING).model_dump()
    assert len(reply["choices"]) == 3 and _off_the_top(reply["choices"]) == 0
    line = {"custom_id": "model-defaults", "method": "POST", "url": "/v1/chat/completions", "body": UNSET_SAMPLING}
    done = wait_until_ended(sdk, sdk.batches.create(input_file_id=upload(sdk, [line]),
                                                    endpoint="/v1/chat/completions", completion_window="24h").id)
    [out] = read_jsonl(sdk, done.output_file_id)
    choices = out["response"]["body"]["choices"]
    assert len(choices) == 3 and _off_the_top(choices) > 0


def test_a_malformed_input_file_fails_the_batch_naming_its_lines(sdk: OpenAI) -> None:
    good = chat_line("one", "hi")
    content = (json.dumps(good) + "\nnot json\n" + json.dumps({**good, "custom_id": "one"}) + "\n"
               + json.dumps({**good, "custom_id": "two", "url": "/v1/images/generations"}) + "\n").encode()
    file_id = sdk.files.create(file=("bad.jsonl", io.BytesIO(content)), purpose="batch").id
    done = wait_until_ended(sdk, sdk.batches.create(input_file_id=file_id, endpoint="/v1/chat/completions",
                                                    completion_window="24h").id)
    assert done.status == "failed" and done.failed_at and done.errors and done.errors.data
    assert [(e.line, e.code) for e in done.errors.data] == [
        (2, "invalid_json_line"), (3, "duplicate_custom_id"), (4, "invalid_url")]
    assert done.output_file_id is None and done.error_file_id is None


def test_a_batch_needs_a_batch_file_of_its_own(sdk: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError):
        sdk.batches.create(input_file_id="file-000000", endpoint="/v1/chat/completions", completion_window="24h")
    other = sdk.files.create(file=("data.jsonl", io.BytesIO(jsonl([chat_line("a", "hi")]))), purpose="user_data")
    with pytest.raises(openai.BadRequestError):
        sdk.batches.create(input_file_id=other.id, endpoint="/v1/chat/completions", completion_window="24h")
    with pytest.raises(openai.NotFoundError):
        sdk.batches.retrieve("batch_000000")


def _slow_lines(n: int, prefix: str, max_tokens: int = 64) -> list[dict[str, Any]]:
    return [chat_line(f"{prefix}-{i}", "Tell a long story.", max_tokens=max_tokens, ignore_eos=True)
            for i in range(n)]


def test_cancel_stops_between_lines_and_a_read_file_cannot_be_deleted(sdk: OpenAI) -> None:
    input_id = upload(sdk, _slow_lines(30, "slow"))
    batch = sdk.batches.create(input_file_id=input_id, endpoint="/v1/chat/completions", completion_window="24h")
    with pytest.raises(openai.ConflictError) as busy:
        sdk.files.delete(input_id)
    assert busy.value.code == "file_in_use"
    cancelling = sdk.batches.cancel(batch.id)
    assert cancelling.status in ("cancelling", "cancelled") and cancelling.cancelling_at
    done = wait_until_ended(sdk, batch.id)
    assert done.status == "cancelled" and done.cancelled_at
    assert done.request_counts is not None
    ran = done.request_counts.completed + done.request_counts.failed
    assert ran < 30 and len(read_jsonl(sdk, done.output_file_id)) == done.request_counts.completed
    with pytest.raises(openai.ConflictError):
        sdk.batches.cancel(wait_until_ended(sdk, sdk.batches.create(
            input_file_id=upload(sdk, [chat_line("x", "hi")]), endpoint="/v1/chat/completions",
            completion_window="24h").id).id)
    assert sdk.files.delete(input_id).deleted  # the batch ended: its input may go now


def test_a_batch_past_its_window_expires_with_the_unrun_lines_in_the_error_file(sdk: OpenAI) -> None:
    lines = _slow_lines(40, "late")  # ~2,500 tokens: far more than 2 s of work on any machine this runs on
    batch = sdk.batches.create(input_file_id=upload(sdk, lines), endpoint="/v1/chat/completions",
                               completion_window="2s")
    done = wait_until_ended(sdk, batch.id)
    assert done.status == "expired" and done.expired_at
    outputs, errors = read_jsonl(sdk, done.output_file_id), read_jsonl(sdk, done.error_file_id)
    expired = [e for e in errors if e["error"] and e["error"]["code"] == "batch_expired"]
    assert expired and all(e["response"] is None for e in expired)
    assert sorted(o["custom_id"] for o in outputs + errors) == sorted(line["custom_id"] for line in lines)


def test_the_257th_waiting_batch_is_refused_with_429(sdk: OpenAI, batch_server: RunningServer) -> None:
    slow = upload(sdk, _slow_lines(4, "queue"))
    created: list[str] = []
    with httpx.Client(base_url=batch_server.base_url, timeout=60,
                      headers={"authorization": f"Bearer {ALICE}"}) as http:
        try:
            refused = None
            for _ in range(4 + 256 + 1):  # four run, 256 wait, the next is refused
                reply = http.post("/v1/batches", json={"input_file_id": slow, "endpoint": "/v1/chat/completions",
                                                       "completion_window": "24h"})
                if reply.status_code != 200:
                    refused = reply
                    break
                created.append(reply.json()["id"])
            assert refused is not None, "no batch was refused"
            assert refused.status_code == 429 and refused.json()["error"]["code"] == "batch_queue_full"
            assert refused.headers.get("retry-after")
            # Four run, 256 wait: the refusal comes once 256 are validating (the four that run may still be).
            assert 256 <= len(created) <= 260
            assert http.get(f"/v1/batches/{created[-1]}").json()["status"] == "validating"
        finally:
            for batch_id in created:
                http.post(f"/v1/batches/{batch_id}/cancel")
    for batch_id in created[-3:]:
        assert wait_until_ended(sdk, batch_id, timeout_s=120).status == "cancelled"


def test_files_and_batches_are_visible_only_to_the_key_that_created_them(sdk: OpenAI,
                                                                         batch_server: RunningServer) -> None:
    bob, carol = client_for(batch_server, BOB), client_for(batch_server, CAROL)
    file_id = upload(sdk, [chat_line("mine", "hi")])
    batch = sdk.batches.create(input_file_id=file_id, endpoint="/v1/chat/completions", completion_window="24h")
    for call in (lambda: bob.files.retrieve(file_id), lambda: bob.files.content(file_id),
                 lambda: bob.files.delete(file_id), lambda: bob.batches.retrieve(batch.id),
                 lambda: bob.batches.cancel(batch.id),
                 lambda: bob.batches.create(input_file_id=file_id, endpoint="/v1/chat/completions",
                                            completion_window="24h")):
        with pytest.raises(openai.NotFoundError):
            call()
    assert file_id not in [f.id for f in bob.files.list().data]
    assert batch.id not in [b.id for b in bob.batches.list().data]
    assert wait_until_ended(sdk, batch.id).status == "completed"
    # Carol's key may use the chat model only: her batch's embedding line is refused as her direct call would be.
    lines = [chat_line("chat", "hi"), {"custom_id": "embed", "method": "POST", "url": "/v1/embeddings",
                                       "body": {"model": EMBEDDER, "input": "x"}}]
    done = wait_until_ended(carol, carol.batches.create(input_file_id=upload(carol, lines),
                                                        endpoint="/v1/chat/completions", completion_window="24h").id)
    [refused] = read_jsonl(carol, done.error_file_id)
    assert refused["custom_id"] == "embed" and refused["response"]["status_code"] in (403, 404)
    with pytest.raises(openai.APIStatusError) as direct:
        carol.embeddings.create(model=EMBEDDER, input="x")
    assert direct.value.status_code == refused["response"]["status_code"]
    assert [o["custom_id"] for o in read_jsonl(carol, done.output_file_id)] == ["chat"]
