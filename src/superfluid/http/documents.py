"""The API documents as the server publishes them: each one at its own URL, a merged one, and Swagger UI.

Every ``openapi/*.yaml`` is a document; nothing here names one, so a document added to the folder is routed
by Connexion (app.py mounts the same list) and published here without a code change:

    /openapi/<name>.json, /openapi/<name>.yaml   one document, as written (``<name>`` is the file's stem)
    /openapi.json, /openapi.yaml                 every document merged into one (see ``merge``)
    /docs                                        Swagger UI with a selector over all of the above

These routes are not in the documents (they are the documents) and need no API key: a description of the
API holds no secret, and tools fetch it before they hold a key.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

DOCS_PATH = "/docs"
MERGED_TITLE = "superfluid — every surface"


def document_paths(spec_dir: Path) -> list[Path]:
    """The documents in ``spec_dir``, in a stable order (by file name)."""
    return sorted(spec_dir.glob("*.yaml"))


def load_document(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as fh:
        loaded = yaml.safe_load(fh)
    if not isinstance(loaded, dict):
        raise ValueError(f"{path} is not an OpenAPI document")
    return loaded


def _component_ref(prefix: str, node: Any) -> Any:
    """``node`` with every local ``#/components/<kind>/<name>`` reference renamed to ``<prefix>.<name>``."""
    if isinstance(node, list):
        return [_component_ref(prefix, item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str) and value.startswith("#/components/"):
            kind, _, name = value.removeprefix("#/components/").partition("/")
            out[key] = f"#/components/{kind}/{prefix}.{name}"
        else:
            out[key] = _component_ref(prefix, value)
    return out


def merge(documents: Mapping[str, Mapping[str, Any]], version: str) -> dict[str, Any]:
    """One document holding every path of every document.

    Component names repeat across dialects (each has its own ``ErrorResponse``), so each document's
    components are renamed ``<name>.<Component>`` and its references with them; tags become
    ``<name>: <tag>`` so Swagger UI groups the routes by dialect. Two documents declaring the same path is an
    error: the server could route only one of them.
    """
    merged: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {
            "title": MERGED_TITLE,
            "version": version,
            "description": "Every route superfluid serves, merged from its documents: "
            + ", ".join(f"`/openapi/{name}.json` ({doc.get('info', {}).get('title', name)})"
                        for name, doc in documents.items())
            + ". Component names carry their document's name as a prefix.",
        },
        "servers": [{"url": "/"}],
        "tags": [],
        "paths": {},
        "components": {},
    }
    versions = {str(doc.get("openapi")) for doc in documents.values()}
    if len(versions) == 1:
        merged["openapi"] = versions.pop()
    for name, doc in documents.items():
        renamed = _component_ref(name, copy.deepcopy(dict(doc)))
        for tag in renamed.get("tags", []):
            merged["tags"].append({**tag, "name": f"{name}: {tag['name']}"})
        for path, item in renamed.get("paths", {}).items():
            if path in merged["paths"]:
                raise ValueError(f"{path} is declared by two documents; the second is {name}")
            for operation in item.values():
                if isinstance(operation, dict) and "tags" in operation:
                    operation["tags"] = [f"{name}: {tag}" for tag in operation["tags"]]
            merged["paths"][path] = item
        for kind, members in renamed.get("components", {}).items():
            target = merged["components"].setdefault(kind, {})
            for member, value in members.items():
                target[f"{name}.{member}"] = value
    return merged


@dataclass(frozen=True)
class Documents:
    """The documents of one spec folder, loaded once (they are small), by name."""

    spec_dir: Path
    version: str

    @cached_property
    def by_name(self) -> dict[str, dict[str, Any]]:
        return {path.stem: load_document(path) for path in document_paths(self.spec_dir)}

    @cached_property
    def merged(self) -> dict[str, Any]:
        return merge(self.by_name, self.version)

    def get(self, name: str | None) -> dict[str, Any] | None:
        """A document by name; None names the merged one."""
        return self.merged if name is None else self.by_name.get(name)

    def selector(self) -> list[dict[str, str]]:
        """Swagger UI's list of documents: each dialect, then the merged one."""
        urls = [{"url": f"/openapi/{name}.json", "name": f"{name} — {doc.get('info', {}).get('title', name)}"}
                for name, doc in self.by_name.items()]
        return [*urls, {"url": "/openapi.json", "name": f"all — {MERGED_TITLE}"}]


def _swagger_page(urls: Iterable[dict[str, str]]) -> str:
    config = json.dumps(list(urls)).replace("</", "<\\/")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8"><title>superfluid API</title>
  <link rel="stylesheet" type="text/css" href="{DOCS_PATH}/swagger-ui.css">
  <link rel="icon" type="image/png" href="{DOCS_PATH}/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{DOCS_PATH}/swagger-ui-bundle.js" charset="UTF-8"></script>
  <script src="{DOCS_PATH}/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
  <script>
    window.onload = function () {{
      window.ui = SwaggerUIBundle({{
        urls: {config},
        validatorUrl: null,
        dom_id: "#swagger-ui",
        deepLinking: true,
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        plugins: [SwaggerUIBundle.plugins.DownloadUrl],
        layout: "StandaloneLayout"
      }});
    }};
  </script>
</body>
</html>
"""


def _swagger_ui_dir() -> Path:
    from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

    return Path(swagger_ui_path)


class DocumentRoutes:
    """ASGI middleware answering GET/HEAD on the document URLs and /docs; everything else passes through."""

    def __init__(self, app: ASGIApp, *, documents: Documents) -> None:
        self.app = app
        self.documents = documents
        self.static_dir = _swagger_ui_dir().resolve()

    def _document_response(self, path: str) -> Response | None:
        if path in ("/openapi.json", "/openapi.yaml"):
            name, suffix = None, path.rsplit(".", 1)[1]
        elif path.startswith("/openapi/") and path.count("/") == 2 and "." in path:
            stem, suffix = path.removeprefix("/openapi/").rsplit(".", 1)
            name = stem
        else:
            return None
        document = self.documents.get(name)
        if document is None or suffix not in ("json", "yaml"):
            return None
        if suffix == "json":
            return Response(json.dumps(document, ensure_ascii=False), media_type="application/json")
        text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
        return Response(text, media_type="application/yaml")

    def _docs_response(self, path: str) -> Response | None:
        if path == DOCS_PATH:
            return RedirectResponse(DOCS_PATH + "/")
        if path in (DOCS_PATH + "/", DOCS_PATH + "/index.html"):
            return HTMLResponse(_swagger_page(self.documents.selector()))
        if path.startswith(DOCS_PATH + "/"):
            # Swagger UI's own files; a name that is not one of them falls through to the 404.
            candidate = (self.static_dir / path.removeprefix(DOCS_PATH + "/")).resolve()
            if candidate.parent == self.static_dir and candidate.is_file():
                return FileResponse(candidate)
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        response = self._document_response(path) or self._docs_response(path)
        if response is None:
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)
