"""The published descriptions' schemas the checks hold bodies and events against.

OpenAI's and Ollama's OpenAPI descriptions (MIT-licensed; their notices are in published-LICENSES.txt beside
this file) are large; the command ships only the component schemas it validates with, and what they refer to,
in ``published.json``, written by ``python -m superfluid.conformance.published REFERENCE_DIR`` from the
descriptions in the project's ../shared/reference (a test fails when the shipped copy is stale). The project's own
conformance tests validate against the same extract, so they need nothing beside the checkout; the schemas only
they use are listed apart from the command's.
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

# Dialect -> (reference file, the component schemas the command's checks use).
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

# Dialect -> the further component schemas the project's conformance tests (conformance/reference.py) use.
TEST_ROOTS: dict[str, tuple[str, ...]] = {
    "openai": (
        "Batch", "ChatCompletionTokenLogprob", "CreateEmbeddingResponse", "CreateTranscriptionResponseJson",
        "CreateTranscriptionResponseStreamEvent", "CreateTranscriptionResponseVerboseJson", "ListFilesResponse",
        "OpenAIFile", "Response", "ResponseItemList",
        # Responses stream events, one per event type superfluid sends (conformance/responses_checks.py).
        "ResponseCreatedEvent", "ResponseInProgressEvent", "ResponseOutputItemAddedEvent",
        "ResponseOutputItemDoneEvent", "ResponseContentPartAddedEvent", "ResponseContentPartDoneEvent",
        "ResponseTextDeltaEvent", "ResponseTextDoneEvent", "ResponseReasoningSummaryPartAddedEvent",
        "ResponseReasoningSummaryPartDoneEvent", "ResponseReasoningSummaryTextDeltaEvent",
        "ResponseReasoningSummaryTextDoneEvent", "ResponseFunctionCallArgumentsDeltaEvent",
        "ResponseFunctionCallArgumentsDoneEvent", "ResponseCompletedEvent", "ResponseIncompleteEvent",
        "ResponseFailedEvent", "ResponseErrorEvent",
    ),
    "ollama": ("EmbedResponse",),
}


def root_schemas(dialect: str) -> tuple[str, ...]:
    """Every component schema the extract starts from for ``dialect``: the command's and the tests'."""
    return SOURCES[dialect][1] + TEST_ROOTS[dialect]


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


def operation_names(document: dict[str, Any]) -> dict[str, str]:
    """"METHOD /path" -> the description's operationId, for every operation that has one."""
    return {f"{method.upper()} {path}": operation["operationId"]
            for path, item in document.get("paths", {}).items() for method, operation in item.items()
            if isinstance(operation, dict) and isinstance(operation.get("operationId"), str)}


def build(reference_dir: Path) -> dict[str, Any]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out: dict[str, Any] = {}
    for dialect, (file_name, _) in SOURCES.items():
        with (reference_dir / file_name).open(encoding="utf-8") as fh:
            document = yaml.load(fh, Loader=loader)
        schemas = extract(document["components"]["schemas"], root_schemas(dialect))
        out[dialect] = {"source": file_name, "schemas": schemas, "operations": operation_names(document)}
    return out


def render(published: dict[str, Any]) -> str:
    return json.dumps(published, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@cache
def shipped() -> dict[str, Any]:
    """The extract as shipped: dialect -> {"source": file name, "schemas": name -> schema, "operations":
    "METHOD /path" -> operationId}."""
    return dict(json.loads(PUBLISHED_JSON.read_text(encoding="utf-8")))


@cache
def _validator(dialect: str, schema_name: str) -> jsonschema.Draft202012Validator:
    schemas = shipped()[dialect]["schemas"]
    if schema_name not in schemas:
        raise KeyError(f"{schema_name} is not in the shipped extract: add it to TEST_ROOTS in {__name__} and "
                       f"regenerate with `python -m {__name__} ../shared/reference`")
    document = {"$ref": f"#/components/schemas/{schema_name}", "components": {"schemas": schemas}}
    return jsonschema.Draft202012Validator(document)


def validate(dialect: str, schema_name: str, instance: Any) -> None:
    """Raise ``jsonschema.ValidationError`` when ``instance`` does not match the published schema."""
    _validator(dialect, schema_name).validate(instance)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m superfluid.conformance.published REFERENCE_DIR", file=sys.stderr)
        return 2
    PUBLISHED_JSON.write_text(render(build(Path(argv[0]))), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
