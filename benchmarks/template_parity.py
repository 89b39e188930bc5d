"""Prompt parity with llama-server: the same template and messages, rendered by both, compared byte for byte.

For every template of ``tests/engine/models/published_templates`` (llama.cpp's ``models/templates``):
llama-server (built from the pinned sdist by ``benchmarks/build_llama_server.sh``, run with ``--jinja
--chat-template-file``) renders each conversation below through ``POST /apply-template``, and superfluid renders
it the way a served chat request is rendered (``ServedModel.chat_text``: the output plan, then the template),
both on the bundled SmolLM2 GGUF. The report counts byte-identical prompts and shows, for each that differs,
where the two part. docs/tool-calling.md gives each differing family's reason.

Run: ``python -m benchmarks.template_parity [--record] [TEMPLATE ...]`` (about 2 s a template).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from conformance.server import free_port

from benchmarks.peers import LLAMA_SERVER, Peer, _spawn, _wait
from benchmarks.recording import record
from benchmarks.template_calls import FOLDER, template_arguments
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve
from superfluid.engine.models.served_model import ServedModel
from superfluid.engine.types import ChatMessage, ChatPrompt, GenerationRequest
from superfluid.handlers.openai.params import tool_policy
from superfluid.settings import Settings

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
CALL = {"id": "call00001", "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
CONVERSATIONS: dict[str, tuple[list[dict[str, Any]], list[Any] | None]] = {
    "plain": ([{"role": "user", "content": "Hello there."}], None),
    "system, two turns": ([{"role": "system", "content": "You are terse."},
                           {"role": "user", "content": "Name a colour."},
                           {"role": "assistant", "content": "Blue."},
                           {"role": "user", "content": "Another."}], None),
    "tools declared": ([{"role": "user", "content": "Weather in Paris?"}], [WEATHER]),
    "call and result": ([{"role": "user", "content": "Weather in Paris?"},
                         {"role": "assistant", "content": "", "tool_calls": [CALL]},
                         {"role": "tool", "tool_call_id": "call00001", "content": "Sunny, 21 C."}], [WEATHER]),
}


def _engine_messages(messages: list[dict[str, Any]]) -> tuple[ChatMessage, ...]:
    return tuple(ChatMessage.from_template_dict(m) for m in messages)


def _superfluid(served: ServedModel, messages: list[dict[str, Any]], tools: list[Any] | None) -> str:
    request = GenerationRequest(model=served.id, tools=tool_policy(tools, None, None) if tools else None,
                                prompt=ChatPrompt(messages=_engine_messages(messages)))
    return served.chat_text(request)[0]


def _llama_server(client: httpx.Client, messages: list[dict[str, Any]], tools: list[Any] | None) -> str | None:
    body: dict[str, Any] = {"messages": messages, **({"tools": tools} if tools else {})}
    response = client.post("/apply-template", json=body)
    return response.json()["prompt"] if response.status_code == 200 else None


def _where(ours: str, theirs: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), min(len(ours), len(theirs)))
    return f"at byte {at}: superfluid {ours[at:at + 40]!r} / llama-server {theirs[at:at + 40]!r}"


def compare(names: list[str], logs: Path) -> tuple[list[str], int, int]:
    gguf = resolve(DEFAULT_MODEL).locate()
    lines, same, total = [], 0, 0
    for name in names:
        template = FOLDER / name
        port = free_port()
        cmd = [str(LLAMA_SERVER), "-m", str(gguf), "--port", str(port), "--jinja", "--chat-template-file",
               str(template), "-c", "4096", "-np", "1", "--no-webui"]
        try:
            peer = _wait(Peer("llama-server", f"http://127.0.0.1:{port}", _spawn(cmd, logs / f"{name}.log"),
                              gguf.stem), "/health", timeout_s=60)
        except Exception as exc:  # llama-server refuses some templates at start-up
            lines.append(f"{name}: llama-server did not start ({str(exc).splitlines()[0][:120]})")
            total += len(CONVERSATIONS)
            continue
        served = ServedModel.load(DEFAULT_MODEL, resolve(DEFAULT_MODEL),
                                  Settings(models=(DEFAULT_MODEL,), threads=1, parallel=1, ctx_size=4096,
                                           chat_template_file=template))
        differs = []
        try:
            with httpx.Client(base_url=peer.base_url, timeout=60) as client:
                for case, (messages, tools) in CONVERSATIONS.items():
                    total += 1
                    try:
                        ours: str | None = _superfluid(served, messages, tools)
                    except Exception as exc:  # a template's own refusal: a 400 on the server
                        ours = None
                        refusal = str(exc)[:100]
                    theirs = _llama_server(client, json.loads(json.dumps(messages)), tools)
                    if ours is not None and ours == theirs:
                        same += 1
                    elif ours is None and theirs is None:
                        same += 1  # both refuse
                    elif ours is None:
                        differs.append(f"{case}: superfluid refuses ({refusal}); llama-server renders")
                    elif theirs is None:
                        differs.append(f"{case}: llama-server refuses; superfluid renders")
                    else:
                        differs.append(f"{case}: {_where(ours, theirs)}")
        finally:
            served.close()
            peer.stop()
        lines.append(f"{name:55} {len(CONVERSATIONS) - len(differs)}/{len(CONVERSATIONS)} identical")
        lines.extend(f"    {d}" for d in differs)
        print("\n".join(lines[-1 - len(differs):]), flush=True)
    return lines, same, total


def main() -> int:
    names, recording = template_arguments(__doc__.splitlines()[0], "template-parity")
    if not LLAMA_SERVER.exists():
        print(f"{LLAMA_SERVER} is missing: run benchmarks/build_llama_server.sh first", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as logs:
        lines, same, total = compare(names, Path(logs))
    report = "\n".join([f"{same} of {total} renderings identical to llama-server's, byte for byte ({len(names)} "
                        f"templates; conversations: {', '.join(CONVERSATIONS)})", "", *lines])
    print(report)
    if recording:
        print(f"recorded in {record('template-parity', report)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
