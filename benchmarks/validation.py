"""What checking a request body costs: jsonschema (Connexion's validator, which names the field at fault) against
the compiled check (http/fast_accept.py, which only ever says "valid" or "ask jsonschema"), each alone, on the
schema the server validates that operation's body against.

Bodies: a one-message OpenAI chat; an OpenAI agent turn (40 messages with tool calls and results, 20 tools);
20,000 one-line messages (the hostile mix's body); an Anthropic turn shaped like Claude Code's (a system prompt
of text blocks, 40 messages of text, tool_use and tool_result blocks, 20 tools); a Responses turn shaped like
Codex's (instructions, 40 input items of messages, function calls and their outputs, 20 function tools). Both
checks must call each body valid; the script stops otherwise.

Run: ``python -m benchmarks.validation [--record]``. Reported: the median of a few hundred checks of each body
(fewer for the big one), in milliseconds.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections.abc import Callable
from typing import Any

from connexion.spec import Specification

from benchmarks.recording import machine_line, record
from superfluid.app import SPEC_DIR, SPECS
from superfluid.http.fast_accept import acceptor
from superfluid.http.validation import _null_alternatives, _validator_of, body_error

MODEL = "smollm2-135m-instruct"
SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
          "required": ["path"]}


def _openai_turn() -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    for i in range(13):
        messages += [{"role": "user", "content": f"Step {i}: read the file."},
                     {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "type": "function",
                      "function": {"name": "read", "arguments": '{"path": "a.py"}'}}]},
                     {"role": "tool", "tool_call_id": f"c{i}", "content": "print('hello')\n" * 20}]
    tools = [{"type": "function", "function": {"name": f"tool_{i}", "description": "Does a thing.",
                                               "parameters": SCHEMA}} for i in range(20)]
    return {"model": MODEL, "messages": messages, "tools": tools, "stream": True}


def _anthropic_turn() -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for i in range(20):
        messages += [{"role": "user", "content": [
                         *([{"type": "tool_result", "tool_use_id": f"t{i - 1}",
                             "content": [{"type": "text", "text": "print('hello')\n" * 20}]}] if i else []),
                         {"type": "text", "text": f"Step {i}: read the file."}]},
                     {"role": "assistant", "content": [
                         {"type": "text", "text": "Reading it."},
                         {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"path": "a.py"}}]}]
    messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t19", "content": "ok"}]})
    tools = [{"name": f"Tool{i}", "description": "Does a thing.", "input_schema": SCHEMA} for i in range(20)]
    system = [{"type": "text", "text": "You are Claude Code."}, {"type": "text", "text": "Be brief. " * 50}]
    return {"model": MODEL, "max_tokens": 32000, "system": system, "messages": messages, "tools": tools,
            "stream": True}


def _responses_turn() -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for i in range(13):
        items += [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"Step {i}."}]},
                  {"type": "function_call", "call_id": f"c{i}", "name": "shell", "arguments": '{"cmd": ["ls"]}'},
                  {"type": "function_call_output", "call_id": f"c{i}", "output": "a.py\nb.py\n"}]
    items.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go on."}]})
    tools = [{"type": "function", "name": f"tool_{i}", "description": "Does a thing.", "parameters": SCHEMA,
              "strict": False} for i in range(20)]
    return {"model": MODEL, "instructions": "You are Codex.", "input": items, "tools": tools, "stream": True,
            "store": False}


BODIES: dict[str, tuple[str, Callable[[], dict[str, Any]], int]] = {
    "OpenAI chat, one message": ("/v1/chat/completions", lambda: {
        "model": MODEL, "messages": [{"role": "user", "content": "hi"}]}, 2000),
    "OpenAI chat, agent turn": ("/v1/chat/completions", _openai_turn, 300),
    "OpenAI chat, 20,000 messages": ("/v1/chat/completions", lambda: {"model": MODEL, "messages": [
        {"role": "user", "content": f"m {i}"} for i in range(20_000)]}, 5),
    "Anthropic, Claude Code turn": ("/v1/messages", _anthropic_turn, 300),
    "Responses, Codex turn": ("/v1/responses", _responses_turn, 300),
}


def _schema(path: str) -> dict[str, Any]:
    for spec in SPECS:
        operation = Specification.load(SPEC_DIR / spec)["paths"].get(path, {}).get("post")
        if operation:
            schema: dict[str, Any] = operation["requestBody"]["content"]["application/json"]["schema"]
            return _null_alternatives(schema)
    raise KeyError(path)


def _median_ms(check: Callable[[], object], times: int) -> float:
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        check()
        spent.append(time.perf_counter() - started)
    return statistics.median(spent) * 1000


def run() -> str:
    lines = [machine_line(), "median of repeated checks of the same body, each check alone, in one process",
             f"{'body':<30} {'jsonschema ms':>14} {'compiled ms':>12} {'ratio':>6}"]
    for name, (path, make, times) in BODIES.items():
        schema, body = _schema(path), make()
        validator, accepts = _validator_of(schema), acceptor(schema)
        error = body_error(validator, body)
        if error is not None or not accepts(body):
            raise SystemExit(f"{name}: not valid to both checks ({error and error.message})")
        slow = _median_ms(functools.partial(body_error, validator, body), times)
        fast = _median_ms(functools.partial(accepts, body), times)
        lines.append(f"{name:<30} {slow:>14.3f} {fast:>12.3f} {slow / fast:>5.0f}x")
        print(lines[-1], flush=True)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--note", default="", help="a line for the record")
    args = parser.parse_args()
    report = run() + (f"\nnote: {args.note}" if args.note else "")
    if args.record:
        print("recorded in", record("validation", report))


if __name__ == "__main__":
    main()
