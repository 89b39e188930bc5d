"""Drift between superfluid's documents and the published ones, measured field by field.

For every operation of every openapi/*.yaml that has a published counterpart (OpenAI's and Ollama's
descriptions in ../shared/reference), the request fields each side declares (body properties as dotted paths,
``[]`` for array items, and query/header parameters) are compared: fields only superfluid declares are its
extensions, fields only the published document declares are omissions. Routes on one side only are listed
too. ``python -m conformance.drift`` writes docs/drift.md; conformance/test_drift.py fails when it is stale.

The published side is read from an extract checked in beside this module (drift_published.json: each published
operation and its request fields), so the report can be checked from a clone with nothing beside it;
``python -m conformance.drift`` refreshes the extract first where ../shared/reference is present, and
conformance/test_drift.py fails there when the extract is stale.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance.reference import REFERENCE_DIR
from superfluid.http.documents import document_paths, load_document

ROOT = Path(__file__).resolve().parents[1]
SPEC_DIR = ROOT / "openapi"
REPORT = ROOT / "docs" / "drift.md"
PUBLISHED_OPERATIONS = Path(__file__).with_name("drift_published.json")
METHODS = ("get", "put", "post", "delete", "patch")
MAX_DEPTH = 4

# Our document -> (published file, the prefix our paths carry that the published paths do not).
COUNTERPARTS: dict[str, tuple[str, str]] = {
    "openai": ("openai-openapi.yaml", "/v1"),
    "ollama": ("ollama-openapi.yaml", ""),
}


@dataclass
class Side:
    document: dict[str, Any]

    def resolve(self, node: Any) -> Any:
        seen = 0
        while isinstance(node, dict) and "$ref" in node and seen < 20:
            parts = node["$ref"].removeprefix("#/").split("/")
            target: Any = self.document
            for part in parts:
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node, seen = target, seen + 1
        return node

    def fields(self, schema: Any, prefix: str = "", depth: int = 0, trail: frozenset[int] = frozenset()
               ) -> Iterator[str]:
        """Dotted names of every property ``schema`` declares, through $ref, allOf/oneOf/anyOf and arrays."""
        schema = self.resolve(schema)
        if not isinstance(schema, dict) or depth > MAX_DEPTH or id(schema) in trail:
            return
        trail = trail | {id(schema)}
        for key in ("allOf", "oneOf", "anyOf"):
            for part in schema.get(key, []):
                yield from self.fields(part, prefix, depth, trail)
        if "items" in schema:
            yield from self.fields(schema["items"], prefix + "[]", depth, trail)
        for name, sub in (schema.get("properties") or {}).items():
            path = f"{prefix}.{name}" if prefix else name
            yield path
            yield from self.fields(sub, path, depth + 1, trail)

    def request_fields(self, operation: dict[str, Any], path_item: dict[str, Any]) -> set[str]:
        found: set[str] = set()
        for parameter in [*path_item.get("parameters", []), *operation.get("parameters", [])]:
            parameter = self.resolve(parameter)
            if parameter.get("in") in ("query", "header"):
                found.add(f"{parameter['in']}:{parameter['name'].lower()}")
        body = self.resolve(operation.get("requestBody", {}))
        for media in ("application/json", "multipart/form-data"):
            schema = body.get("content", {}).get(media, {}).get("schema")
            if schema is not None:
                found |= set(self.fields(schema))
        return found

    def operations(self, strip: str = "") -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
        """"METHOD /path" (path parameters written {}) -> (operation, path item)."""
        out = {}
        for path, item in self.document.get("paths", {}).items():
            key_path = re.sub(r"\{[^}]+\}", "{}", path.removeprefix(strip) if strip else path)
            for method in METHODS:
                if method in item:
                    out[f"{method.upper()} {key_path}"] = (item[method], item)
        return out


def load(path: Path) -> dict[str, Any]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with path.open(encoding="utf-8") as fh:
        return dict(yaml.load(fh, Loader=loader))


def extract(reference_dir: Path = REFERENCE_DIR) -> dict[str, Any]:
    """Document name -> {"source": published file, "operations": "METHOD /path" -> its sorted request fields}."""
    out: dict[str, Any] = {}
    for name, (file_name, _) in COUNTERPARTS.items():
        side = Side(load(reference_dir / file_name))
        operations = {key: sorted(side.request_fields(*found)) for key, found in side.operations().items()}
        out[name] = {"source": file_name, "operations": operations}
    return out


def render_extract(published: dict[str, Any]) -> str:
    return json.dumps(published, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def shipped_extract() -> dict[str, Any]:
    return dict(json.loads(PUBLISHED_OPERATIONS.read_text(encoding="utf-8")))


def _route(strip: str, short: str) -> str:
    method, path = short.split(" ", 1)
    return f"`{method} {strip}{path}`"


def _names(fields: set[str]) -> str:
    return ", ".join(f"`{field}`" for field in sorted(fields)) if fields else "none"


def report(spec_dir: Path = SPEC_DIR, published: dict[str, Any] | None = None) -> str:
    """docs/drift.md's text, from ``published`` (an extract; the checked-in one by default)."""
    published = shipped_extract() if published is None else published
    lines = [
        "# Drift from the published API descriptions",
        "",
        "Generated by `python -m conformance.drift` from `openapi/*.yaml` and the published descriptions "
        "(OpenAI's and Ollama's OpenAPI documents); conformance/test_drift.py fails when this page is stale. "
        "Request fields are compared by name: body properties as dotted paths (`[]` is an array item), "
        "`query:`/`header:` for parameters. **Additions** are superfluid's extensions (fields the published "
        "document does not declare); **omissions** are published fields superfluid's document does not "
        "declare (OpenAI fields it omits are ignored when sent; Ollama fields it omits are a 400). "
        f"Nesting is followed {MAX_DEPTH} levels deep.",
        "",
    ]
    for spec in document_paths(spec_dir):
        name = spec.stem
        ours = Side(load_document(spec))
        if name not in COUNTERPARTS:
            lines += [f"## {name}", "", "No published description to compare with.", ""]
            continue
        file_name, strip = COUNTERPARTS[name]
        our_ops, their_ops = ours.operations(), published[name]["operations"]
        mapped = {key.replace(" " + strip, " ", 1) if strip else key: key for key in our_ops}
        lines += [f"## {name} (against {file_name})", ""]
        only_ours = sorted(key for short, key in mapped.items() if short not in their_ops)
        lines += [f"Routes only superfluid declares (extensions): {', '.join(f'`{k}`' for k in only_ours) or 'none'}.",
                  ""]
        unserved = sorted(short for short in their_ops if short not in mapped)
        named = ", ".join(_route(strip, short) for short in unserved) or "none"
        lines += [f"Published routes superfluid does not declare ({len(unserved)}): {named}.", ""]
        for short, key in sorted(mapped.items()):
            if short not in their_ops:
                continue
            mine, theirs = ours.request_fields(*our_ops[key]), set(their_ops[short])
            lines += [f"### {key}", "",
                      f"- Shared fields: {len(mine & theirs)}",
                      f"- Additions (superfluid extensions): {_names(mine - theirs)}",
                      f"- Omissions (published, not declared): {_names(theirs - mine)}", ""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        return 0 if REPORT.read_text(encoding="utf-8") == report() else 1
    if REFERENCE_DIR.is_dir():
        PUBLISHED_OPERATIONS.write_text(render_extract(extract()), encoding="utf-8")
        print(f"wrote {PUBLISHED_OPERATIONS.relative_to(ROOT)} from {REFERENCE_DIR}")
    else:
        print(f"{REFERENCE_DIR} is missing: the report uses the checked-in {PUBLISHED_OPERATIONS.name}")
    REPORT.write_text(report(), encoding="utf-8")
    print(f"wrote {REPORT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
