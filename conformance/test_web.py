"""The web listener (--web, docs/web.md) on the real server: its security checks, the JSON-RPC session API,
replies streamed over SSE and over one WebSocket for several sessions at once, warm follow-up turns, and a
session store that survives kill -9 in the middle of a reply."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import aiohttp
import httpx
import pytest

from conformance.server import DEFAULT_MODEL, free_port, stop_server
from conformance.web_server import WebServer, start_web_server


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    server = start_web_server(tmp_path_factory.mktemp("web"))
    yield server
    stop_server(server.api)


def _events(body: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for frame in body.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.split("\n") if ": " in line)
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def _stream(web: WebServer, **body: Any) -> list[tuple[str, dict[str, Any]]]:
    with web.client() as http:
        reply = http.post("/web/stream", json=body)
        assert reply.status_code == 200, reply.text
        assert reply.headers["content-type"].startswith("text/event-stream")
        return _events(reply.text)


# ---- security ----

def test_the_token_guards_every_session_route(web: WebServer) -> None:
    with httpx.Client(base_url=web.url, timeout=30) as http:
        assert http.get("/web/health").json() == {"status": "ok"}
        for method, path in (("POST", "/web/rpc"), ("POST", "/web/stream"), ("GET", "/web/ws")):
            missing = http.request(method, path, json={})
            assert missing.status_code == 401, (path, missing.text)
            assert missing.json()["error"]["code"] == "unauthorized"
            wrong = http.request(method, path, json={}, headers={"Authorization": "Bearer not-the-token"})
            assert wrong.status_code == 401
        assert http.post("/web/login", json={"token": "not-the-token"}).status_code == 401
        login = http.post("/web/login", json={"token": web.token})
        assert login.status_code == 204
        cookie = login.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        # The cookie alone now opens the session API.
        listed = http.post("/web/rpc", json={"jsonrpc": "2.0", "id": 7, "method": "session.list"})
        assert listed.status_code == 200 and listed.json()["id"] == 7 and "sessions" in listed.json()["result"]


def test_foreign_hosts_origins_and_sites_are_refused(web: WebServer) -> None:
    auth = {"Authorization": f"Bearer {web.token}"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "session.list"}
    with httpx.Client(base_url=web.url, timeout=30) as http:
        cases = [({"Host": "evil.example"}, "forbidden_host"),
                 ({"Host": f"attacker.example:{web.url.rsplit(':', 1)[1].rstrip('/')}"}, "forbidden_host"),
                 ({"Origin": "http://evil.example"}, "forbidden_origin"),
                 ({"Origin": "http://127.0.0.1:1"}, "forbidden_origin"),
                 ({"Sec-Fetch-Site": "cross-site"}, "cross_site"),
                 ({"Sec-Fetch-Site": "same-site"}, "cross_site")]
        for headers, code in cases:
            for path in ("/web/rpc", "/web/health"):
                refused = http.post(path, json=body, headers={**auth, **headers}) if path == "/web/rpc" else \
                    http.get(path, headers=headers)
                assert refused.status_code == 403, (headers, path, refused.text)
                assert refused.json()["error"]["code"] == code
        own = http.post("/web/rpc", json=body, headers={**auth, "Origin": web.url.rstrip("/"),
                                                        "Sec-Fetch-Site": "same-origin"})
        assert own.status_code == 200
        page = http.get("/")
        assert page.status_code == 200 and "access-control-allow-origin" not in page.headers
        assert "default-src 'self'" in page.headers["content-security-policy"]


def test_a_websocket_from_a_foreign_origin_is_refused(web: WebServer) -> None:
    async def connect(origin: str) -> int:
        async with aiohttp.ClientSession() as session:
            try:
                async with session.ws_connect(web.url + "web/ws", headers={
                        "Authorization": f"Bearer {web.token}", "Origin": origin}):
                    return 101
            except aiohttp.WSServerHandshakeError as exc:
                return exc.status

    assert asyncio.run(connect("http://evil.example")) == 403
    assert asyncio.run(connect(web.url.rstrip("/"))) == 101


def test_the_listeners_do_not_share_routes(web: WebServer) -> None:
    with web.client() as http:
        assert http.get("/v1/models").status_code == 404
        assert http.post("/v1/chat/completions", json={}).status_code == 404
        assert http.get("/api/tags").status_code == 404
        assert http.get("/health").status_code == 404
    main = httpx.get(web.api.base_url + "/web/health", headers={"Authorization": f"Bearer {web.token}"})
    assert main.status_code == 404
    assert httpx.post(web.api.base_url + "/web/rpc", json={}).status_code == 404


@pytest.mark.parametrize("address", ["0.0.0.0:8454", "192.168.1.10:8454", "example.com:8454", "8454"])
def test_a_web_address_that_is_not_loopback_stops_serve(address: str) -> None:
    done = subprocess.run([sys.executable, "-m", "superfluid.cli", "serve", DEFAULT_MODEL, "--port",
                           str(free_port()), "--web", address], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("superfluid: --web"), done.stderr


# ---- the session API ----

def test_sessions_are_created_listed_renamed_forked_and_deleted(web: WebServer) -> None:
    session = web.rpc("session.create", title="colours")
    assert session["id"].startswith("sess_") and session["title"] == "colours"
    # Greedy: sampled, the model sometimes ends a short list of colours before the 12 tokens (a CI run saw it).
    events = _stream(web, session_id=session["id"], content="Name three colours.", max_tokens=12, temperature=0)
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "start" and kinds[-1] == "done" and "text" in kinds and "usage" in kinds
    text = "".join(data["text"] for kind, data in events if kind == "text")
    assert events[-1][1] == {"message_id": events[0][1]["message_id"], "state": "done", "finish_reason": "length"}
    stored = web.rpc("session.get", session_id=session["id"])
    assert [(m["role"], m["state"]) for m in stored["messages"]] == [("user", "done"), ("assistant", "done")]
    assert stored["messages"][1]["content"] == text
    assert stored["messages"][1]["usage"]["completion_tokens"] == 12
    assert web.rpc("session.rename", session_id=session["id"], title="colors")["title"] == "colors"
    assert session["id"] in [s["id"] for s in web.rpc("session.list")["sessions"]]
    fork = web.rpc("session.fork", session_id=session["id"], message_id=stored["messages"][0]["id"])
    forked = web.rpc("session.get", session_id=fork["id"])
    assert [m["content"] for m in forked["messages"]] == ["Name three colours."]
    assert forked["messages"][0]["id"] != stored["messages"][0]["id"]
    assert web.rpc("session.delete", session_id=fork["id"]) == {"deleted": True}
    assert fork["id"] not in [s["id"] for s in web.rpc("session.list")["sessions"]]
    assert web.rpc("session.get", session_id=session["id"])["messages"] == stored["messages"]


def test_a_follow_up_turn_is_served_warm(web: WebServer) -> None:
    session = web.rpc("session.create", system="You are a terse assistant who answers in one line. " * 8)
    _stream(web, session_id=session["id"], content="What is the capital of France?", max_tokens=8)
    second = _stream(web, session_id=session["id"], content="And of Italy?", max_tokens=8)
    usage = next(data for kind, data in second if kind == "usage")
    # All but the new question (and the end of the first reply, should it tokenize otherwise when sent back).
    assert usage["cached_tokens"] >= usage["prompt_tokens"] - 40 > 60, usage


def test_edit_and_regenerate_truncate_the_session(web: WebServer) -> None:
    session = web.rpc("session.create")
    _stream(web, session_id=session["id"], content="Say hello.", max_tokens=4)
    _stream(web, session_id=session["id"], content="Say goodbye.", max_tokens=4)
    messages = web.rpc("session.get", session_id=session["id"])["messages"]
    assert len(messages) == 4
    # Regenerate the last reply: the same user turns, a new reply.
    _stream(web, session_id=session["id"], truncate_from=messages[3]["id"], max_tokens=4)
    again = web.rpc("session.get", session_id=session["id"])["messages"]
    assert [m["content"] for m in again[:3]] == [m["content"] for m in messages[:3]]
    assert len(again) == 4 and again[3]["id"] != messages[3]["id"]
    # Edit the second user turn.
    _stream(web, session_id=session["id"], truncate_from=messages[2]["id"], content="Say thanks.", max_tokens=4)
    edited = web.rpc("session.get", session_id=session["id"])["messages"]
    assert [m["role"] for m in edited] == ["user", "assistant", "user", "assistant"]
    assert edited[2]["content"] == "Say thanks."


def test_rpc_errors_are_json_rpc_error_objects(web: WebServer) -> None:
    with web.client() as http:
        def call(body: Any) -> Any:
            reply = http.post("/web/rpc", content=body if isinstance(body, bytes) else json.dumps(body))
            assert reply.status_code == 200
            return reply.json()

        assert call(b"{not json")["error"]["code"] == -32700
        assert call({"id": 1, "method": "session.list"})["error"]["code"] == -32600
        assert call({"jsonrpc": "2.0", "id": 1, "method": "session.explode"})["error"]["code"] == -32601
        bad = call({"jsonrpc": "2.0", "id": 2, "method": "session.get", "params": {"session": "x"}})
        assert bad["error"]["code"] == -32602 and bad["id"] == 2
        missing = call({"jsonrpc": "2.0", "id": 3, "method": "session.get", "params": {"session_id": "sess_none"}})
        assert missing["error"]["code"] == -32001
        session = web.rpc("session.create")
        refused = call({"jsonrpc": "2.0", "id": 4, "method": "message.send",
                        "params": {"session_id": session["id"], "content": "hi", "model": "no-such-model"}})
        assert refused["error"]["code"] == -32003
        assert refused["error"]["data"]["status"] == 404 and "no-such-model" in refused["error"]["message"]
        # A refused request stores nothing.
        assert web.rpc("session.get", session_id=session["id"])["messages"] == []
        batch = http.post("/web/rpc", json=[{"jsonrpc": "2.0", "id": 1, "method": "models.list"},
                                            {"jsonrpc": "2.0", "method": "session.list"}]).json()
        assert len(batch) == 1 and batch[0]["result"]["default"] == batch[0]["result"]["models"][0]["id"]


def test_cancel_stops_a_reply_and_keeps_its_text(web: WebServer) -> None:
    session = web.rpc("session.create")
    sent = web.rpc("message.send", session_id=session["id"], max_tokens=400, temperature=0,
                   content="Write a 2000-word essay about the history of the ocean, with many sections.")
    message_id = sent["message"]["id"]
    assert sent["message"]["state"] == "streaming" and sent["user_message"]["role"] == "user"
    busy = httpx.post(web.url + "web/rpc", headers={"Authorization": f"Bearer {web.token}"}, json={
        "jsonrpc": "2.0", "id": 1, "method": "message.send", "params": {"session_id": session["id"], "content": "x"}})
    assert busy.json()["error"]["code"] == -32002
    with web.client() as http, http.stream("POST", "/web/stream", json={"message_id": message_id}) as reply:
        texts = 0
        for line in reply.iter_lines():
            if line == "event: text":
                texts += 1
                if texts == 5:
                    assert web.rpc("message.cancel", message_id=message_id) == {"cancelled": True}
            if line == "event: done":
                break
    stored = web.rpc("session.get", session_id=session["id"])["messages"][-1]
    assert stored["state"] == "cancelled" and stored["content"]
    assert stored["usage"] is None or stored["usage"]["completion_tokens"] < 400
    assert web.rpc("message.cancel", message_id=message_id) == {"cancelled": False}


def test_one_websocket_carries_several_sessions_at_once(web: WebServer) -> None:
    async def run() -> dict[str, list[dict[str, Any]]]:
        async with aiohttp.ClientSession() as http, http.ws_connect(
                web.url + "web/ws", headers={"Authorization": f"Bearer {web.token}"}) as socket:
            async def call(request_id: int, method: str, **params: Any) -> None:
                await socket.send_str(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method,
                                                  "params": params}))

            await call(1, "session.create", title="one")
            await call(2, "session.create", title="two")
            sessions: dict[int, str] = {}
            events: dict[str, list[dict[str, Any]]] = {}
            done = 0
            async for frame in socket:
                message = json.loads(frame.data)
                if message.get("id") in (1, 2):
                    sessions[message["id"]] = message["result"]["id"]
                    await call(10 + message["id"], "message.send", session_id=message["result"]["id"],
                               content=f"Count to {message['id'] + 4}.", max_tokens=10)
                elif message.get("id") in (11, 12):
                    assert "result" in message, message
                    events.setdefault(message["result"]["message"]["id"], [])
                elif message.get("method") == "message.event":
                    event = message["params"]
                    events.setdefault(event["message_id"], []).append(event)
                    if event["type"] == "done":
                        done += 1
                        if done == 2:
                            break
            return events

    events = asyncio.run(run())
    assert len(events) == 2
    for stream in events.values():
        kinds = [event["type"] for event in stream]
        assert kinds[0] == "start" and kinds[-1] == "done" and "text" in kinds, kinds
        assert stream[-1]["state"] == "done"


# ---- durability ----

def test_the_session_store_survives_kill_9_mid_reply(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.mktemp("web-kill")
    first = start_web_server(base, log_name="before.log")
    try:
        session = first.rpc("session.create", title="durable")
        _stream(first, session_id=session["id"], content="Name a colour.", max_tokens=6)
        # Kill the server while a reply streams, once part of it was saved (it is saved every second). A reply
        # that ends first (the model stopped early) is kept as a finished turn, and another one is asked for.
        for _ in range(3):
            first.rpc("message.send", session_id=session["id"], max_tokens=1500, temperature=0,
                      content="Write a 2000-word essay about the history of the ocean, with many sections.")
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                last = first.rpc("session.get", session_id=session["id"])["messages"][-1]
                if last["state"] != "streaming" or last["content"]:
                    break
                time.sleep(0.05)
            if last["state"] == "streaming":
                first.api.process.send_signal(signal.SIGKILL)
                first.api.process.wait(timeout=30)
                break
        assert first.api.process.returncode == -signal.SIGKILL, "every reply ended before the kill"
    finally:
        if first.api.process.poll() is None:
            first.api.process.kill()
    before = last
    second = start_web_server(base, log_name="after.log")
    try:
        deadline = time.monotonic() + 30
        while True:
            messages = second.rpc("session.get", session_id=session["id"])["messages"]
            if messages[-1]["state"] != "streaming" or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert len(messages) >= 4 and [m["role"] for m in messages] == ["user", "assistant"] * (len(messages) // 2)
        assert [m["state"] for m in messages] == ["done"] * (len(messages) - 1) + ["cut"]
        assert all(m["content"] for m in messages[:-1])
        # The cut reply keeps its text up to the last save before the kill.
        assert messages[-1]["id"] == before["id"] and messages[-1]["content"].startswith(before["content"])
        # The session goes on after the restart.
        events = _stream(second, session_id=session["id"], content="Thanks.", max_tokens=4)
        assert events[-1][1]["state"] == "done"
    finally:
        stop_server(second.api)


def test_the_page_and_its_assets_are_served(web: WebServer) -> None:
    with httpx.Client(base_url=web.url, timeout=30) as http:
        page = http.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        for asset in ("app.js", "style.css"):
            assert f"/assets/{asset}" in page.text
            assert http.get(f"/assets/{asset}").status_code == 200
        assert http.get("/assets/..%2Fguard.py").status_code == 404
        assert http.get("/assets/missing.js").status_code == 404


# ---- keys ----

WEB_POLICY = """
[[keys]]
id = "admin"
key = "web-test-admin"
role = "admin"

[[keys]]
id = "browser"
key = "web-test-browser"
max_concurrent = 1
models = ["smollm2-135m-instruct"]
"""


def test_with_keys_the_web_sessions_act_as_the_named_key(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.mktemp("web-keys")
    (base / "policy.toml").write_text(WEB_POLICY)
    policy = ["--key-policy", str(base / "policy.toml")]
    without = subprocess.run([sys.executable, "-m", "superfluid.cli", "serve", DEFAULT_MODEL, "--port",
                              str(free_port()), "--web", f"127.0.0.1:{free_port()}", *policy],
                             capture_output=True, text=True, timeout=120)
    assert without.returncode == 2 and "--web-key" in without.stderr
    web = start_web_server(base, extra=(*policy, "--web-key", "browser"),
                           models=(DEFAULT_MODEL, "gemma3-270m"))
    try:
        # The key's allow-list: only the model it may use is listed, and another is refused as unknown.
        listed = web.rpc("models.list")
        assert [m["id"] for m in listed["models"]] == ["smollm2-135m-instruct"]
        session = web.rpc("session.create")
        with web.client() as http:
            refused = http.post("/web/rpc", json={"jsonrpc": "2.0", "id": 1, "method": "message.send", "params": {
                "session_id": session["id"], "content": "hi", "model": "gemma3-270m"}}).json()
        assert refused["error"]["code"] == -32003 and refused["error"]["data"]["status"] == 404
        # Its concurrency limit (1): a second reply while one is written is a 429.
        other = web.rpc("session.create")
        web.rpc("message.send", session_id=session["id"], content="Tell a long story.", max_tokens=300)
        with web.client() as http:
            limited = http.post("/web/rpc", json={"jsonrpc": "2.0", "id": 2, "method": "message.send", "params": {
                "session_id": other["id"], "content": "hi"}}).json()
        assert limited["error"]["code"] == -32003, limited
        assert limited["error"]["data"] == {"status": 429, "code": "concurrency_limit_exceeded"}
        # The API key itself opens nothing on the web listener.
        assert httpx.post(web.url + "web/rpc", json={}, headers={
            "Authorization": "Bearer web-test-admin"}).status_code == 401
    finally:
        stop_server(web.api)
