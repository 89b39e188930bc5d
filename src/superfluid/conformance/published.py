"""The published descriptions' schemas the checks hold bodies and events against.

OpenAI's and Ollama's OpenAPI descriptions (MIT-licensed; their notices are in published-LICENSES.txt beside
this file) are large; the command ships only the component schemas it validates with, and what they refer to,
in ``published.json``, written by ``python -m superfluid.conformance.published REFERENCE_DIR`` from the
descriptions in the project's ../shared/reference (a test fails when the shipped copy is stale).
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

PUBLISHED_JSON = Path(__file__).with_name("published.json")

# Dialect -> (reference file, the component schemas the checks use).
SOURCES: dict[str, tuple[str, tuple[str, ...]]] = {
    "openai": ("openai-openapi.yaml", (
        "CreateChatCompletionResponse", "CreateChatCompletionStreamResponse", "CreateCompletionResponse",
        "CompletionUsage", "ListModelsResponse", "Model", "ErrorResponse",
    )),
    "ollama": ("ollama-openapi.yaml", (
        "ChatResponse", "ChatStreamEvent", "GenerateResponse", "GenerateStreamEvent", "ListResponse",
        "PsResponse", "ShowResponse", "VersionResponse", "ErrorResponse",
    )),
}


def nullable_as_null_type(node: Any) -> Any:
    """OpenAPI 3.0's ``nullable: true`` (still used inside 3.1 documents) as JSON Schema's null type."""
    if isinstance(node, list):
        return [nullable_as_null_type(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: nullable_as_null_type(v) for k, v in node.items()}
    if out.pop("nullable", False):
        if "type" in out:
            kinds = out["type"] if isinstance(out["type"], list) else [out["type"]]
            out["type"] = [*kinds, "null"]
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        if "$ref" in out or "anyOf" in out or "oneOf" in out or "allOf" in out:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def _refs(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(_refs(item) for item in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = {node["$ref"].rsplit("/", 1)[1]} if isinstance(node.get("$ref"), str) else set()
    return found.union(*(_refs(value) for value in node.values())) if node else found


def extract(schemas: dict[str, Any], roots: tuple[str, ...]) -> dict[str, Any]:
    """``roots`` and every component schema they reach."""
    wanted, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted.add(name)
        todo.extend(_refs(schemas[name]) - wanted)
    return {name: nullable_as_null_type(schemas[name]) for name in sorted(wanted)}


def build(reference_dir: Path) -> dict[str, Any]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out: dict[str, Any] = {}
    for dialect, (file_name, roots) in SOURCES.items():
        with (reference_dir / file_name).open(encoding="utf-8") as fh:
            document = yaml.load(fh, Loader=loader)
        out[dialect] = {"source": file_name, "schemas": extract(document["components"]["schemas"], roots)}
    return out


def render(published: dict[str, Any]) -> str:
    return json.dumps(published, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@cache
def _published() -> dict[str, Any]:
    return dict(json.loads(PUBLISHED_JSON.read_text(encoding="utf-8")))


def validate(dialect: str, schema_name: str, instance: Any) -> None:
    """Raise ``jsonschema.ValidationError`` when ``instance`` does not match the published schema."""
    schemas = _published()[dialect]["schemas"]
    document = {"$ref": f"#/components/schemas/{schema_name}", "components": {"schemas": schemas}}
    jsonschema.Draft202012Validator(document).validate(instance)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m superfluid.conformance.published REFERENCE_DIR", file=sys.stderr)
        return 2
    PUBLISHED_JSON.write_text(render(build(Path(argv[0]))), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
