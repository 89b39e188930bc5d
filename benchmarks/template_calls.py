"""Every published chat template on the real server: forced and named calls in all four dialects.

For each template of ``tests/engine/models/published_templates`` (llama.cpp's ``models/templates``), serve the
bundled SmolLM2 with ``--chat-template-file`` and ask for the weather with two tools:

* OpenAI chat: ``tool_choice: "required"``, a named function, and ``required`` streamed;
* Anthropic Messages: ``tool_choice`` ``any`` and ``tool``;
* Responses: ``required`` and a named function;
* Ollama ``/api/chat`` (it has no ``tool_choice``): a plain ask and a history holding a call and its result,
  which must be answered with runnable calls or words.

A case passes when the first call is one of the tools and its arguments validate against that tool's schema.
``conformance/test_template_families.py`` runs the same requests in CI for one template per call-syntax family;
this sweep is the whole folder, about 30 s a template on 2 cores. Run:
``python -m benchmarks.template_calls [--record] [TEMPLATE ...]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import jsonschema
from conformance.server import DEFAULT_MODEL, start_server, stop_server
from conformance.tool_checks import ASK, PARAMETERS, TOOLS

from benchmarks.recording import record

FOLDER = Path(__file__).resolve().parents[1] / "tests" / "engine" / "models" / "published_templates"
TOKENS = 200
ANTHROPIC_TOOLS = [{"name": t["function"]["name"], "description": t["function"]["description"],
                    "input_schema": t["function"]["parameters"]} for t in TOOLS]
RESPONSES_TOOLS = [{"type": "function", "name": t["function"]["name"], "description": t["function"]["description"],
                    "parameters": t["function"]["parameters"]} for t in TOOLS]
HISTORY = [
    {"role": "user", "content": ASK},
    {"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}}]},
    {"role": "tool", "content": '{"temperature": 21, "sky": "sunny"}', "tool_name": "get_weather"},
]


def _valid(name: str, arguments: Any) -> str:
    parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    jsonschema.validate(parsed, PARAMETERS[name])
    return name


def _ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, f"{response.status_code} {response.text[:200]}"
    return response.json()


def _openai(c: httpx.Client, choice: Any) -> str:
    body = _ok(c.post("/v1/chat/completions", json={
        "model": DEFAULT_MODEL, "messages": [{"role": "user", "content": ASK}], "tools": TOOLS,
        "tool_choice": choice, "max_tokens": TOKENS, "temperature": 0}))
    calls = body["choices"][0]["message"].get("tool_calls")
    assert calls, f"no call: {body['choices'][0]}"
    return _valid(calls[0]["function"]["name"], calls[0]["function"]["arguments"])


def _openai_stream(c: httpx.Client) -> str:
    calls: dict[int, dict[str, str]] = {}
    body = {"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": ASK}], "tools": TOOLS,
            "tool_choice": "required", "max_tokens": TOKENS, "temperature": 0, "stream": True}
    with c.stream("POST", "/v1/chat/completions", json=body) as response:
        assert response.status_code == 200, response.read()[:200]
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            for delta in (chunk["choices"][0]["delta"].get("tool_calls") or []) if chunk["choices"] else []:
                entry = calls.setdefault(delta["index"], {"name": "", "arguments": ""})
                entry["name"] += (delta.get("function") or {}).get("name") or ""
                entry["arguments"] += (delta.get("function") or {}).get("arguments") or ""
    assert calls, "no call streamed"
    return _valid(calls[0]["name"], calls[0]["arguments"])


def _anthropic(c: httpx.Client, choice: Any) -> str:
    body = _ok(c.post("/v1/messages", headers={"anthropic-version": "2023-06-01"}, json={
        "model": DEFAULT_MODEL, "max_tokens": TOKENS, "messages": [{"role": "user", "content": ASK}],
        "tools": ANTHROPIC_TOOLS, "tool_choice": {**choice, "disable_parallel_tool_use": True}, "temperature": 0}))
    uses = [block for block in body["content"] if block["type"] == "tool_use"]
    assert uses, f"no tool_use: {body['content']}"
    return _valid(uses[0]["name"], uses[0]["input"])


def _responses(c: httpx.Client, choice: Any) -> str:
    body = _ok(c.post("/v1/responses", json={
        "model": DEFAULT_MODEL, "input": ASK, "tools": RESPONSES_TOOLS, "tool_choice": choice,
        "parallel_tool_calls": False, "max_output_tokens": TOKENS, "temperature": 0, "store": False}))
    calls = [item for item in body["output"] if item["type"] == "function_call"]
    assert calls, f"no function_call: {body['output']}"
    return _valid(calls[0]["name"], calls[0]["arguments"])


def _ollama(c: httpx.Client, messages: list[Any]) -> str:
    body = _ok(c.post("/api/chat", json={"model": DEFAULT_MODEL, "messages": messages, "tools": TOOLS,
                                         "stream": False, "options": {"temperature": 0, "num_predict": TOKENS}}))
    calls = body["message"].get("tool_calls") or []
    if calls and body.get("done_reason") == "stop":
        return _valid(calls[0]["function"]["name"], calls[0]["function"]["arguments"])
    return "calls (cut)" if calls else "words"


CASES: dict[str, Callable[[httpx.Client], str]] = {
    "openai required": lambda c: _openai(c, "required"),
    "openai named": lambda c: _openai(c, {"type": "function", "function": {"name": "get_time"}}),
    "openai streamed": _openai_stream,
    "anthropic any": lambda c: _anthropic(c, {"type": "any"}),
    "anthropic tool": lambda c: _anthropic(c, {"type": "tool", "name": "get_weather"}),
    "responses required": lambda c: _responses(c, "required"),
    "responses named": lambda c: _responses(c, {"type": "function", "name": "get_time"}),
    "ollama ask": lambda c: _ollama(c, [{"role": "user", "content": ASK}]),
    "ollama history": lambda c: _ollama(c, HISTORY),
}


def sweep(names: list[str], logs: Path) -> tuple[list[str], int, int]:
    lines, passed, total = [], 0, 0
    for name in names:
        started = time.monotonic()
        try:
            server = start_server([DEFAULT_MODEL, "--chat-template-file", str(FOLDER / name), "--parallel", "1",
                                   "--ctx-size", "8192"], logs / f"{name}.log")
        except RuntimeError as exc:
            lines.append(f"{name}: the server did not start: {str(exc)[-200:]}")
            total += len(CASES)
            continue
        failures = []
        try:
            with httpx.Client(base_url=server.base_url, timeout=180) as client:
                fmt = client.get("/props").json().get("tool_format")
                for case, run in CASES.items():
                    total += 1
                    try:
                        run(client)
                        passed += 1
                    except (AssertionError, jsonschema.ValidationError, json.JSONDecodeError, KeyError) as exc:
                        failures.append(f"{case}: {str(exc).splitlines()[0][:160]}")
        finally:
            stop_server(server)
        verdict = "ok" if not failures else f"{len(failures)} failed"
        lines.append(f"{name:55} {fmt:17} {verdict} ({time.monotonic() - started:.0f} s)")
        lines.extend(f"    {failure}" for failure in failures)
        print(lines[-1 - len(failures)], flush=True)
    return lines, passed, total


def template_arguments(description: str, record_as: str) -> tuple[list[str], bool]:
    """The command line of a sweep over the published templates: the names to run (all by default) and
    whether to record the report as benchmarks/results/``record_as``.txt."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("templates", nargs="*", help="template file names (default: the whole folder)")
    parser.add_argument("--record", action="store_true", help=f"write benchmarks/results/{record_as}.txt")
    args = parser.parse_args()
    return args.templates or sorted(p.name for p in FOLDER.glob("*.jinja")), args.record


def main() -> int:
    names, recording = template_arguments(__doc__.splitlines()[0], "template-calls")
    with tempfile.TemporaryDirectory() as logs:
        lines, passed, total = sweep(names, Path(logs))
    report = "\n".join([f"{passed} of {total} cases pass, {len(names)} templates, {len(CASES)} cases each "
                        f"(model {DEFAULT_MODEL}; cases: {', '.join(CASES)})", "", *lines])
    print(report)
    if recording:
        print(f"recorded in {record('template-calls', report)}")
    return 0 if passed == total else 1


if __name__ == "__main__":
    sys.exit(main())
