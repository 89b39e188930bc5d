"""http/documents.py: every document at its own URL, the merged one, Swagger UI over all of them; and every
document (the merged one too) valid OpenAPI by openapi-spec-validator."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from openapi_spec_validator import validate
from starlette.testclient import TestClient

from superfluid.app import SPEC_DIR, SPECS
from superfluid.http.documents import Documents, document_paths, load_document, merge
from superfluid.settings import Settings
from tests.conftest import app_client

NAMES = [Path(spec).stem for spec in SPECS]


def test_every_yaml_in_the_folder_is_routed() -> None:
    assert {path.name for path in SPEC_DIR.glob("*.yaml")} == set(SPECS)
    assert {"openai", "ollama"} <= set(NAMES)


@pytest.mark.parametrize("path", document_paths(SPEC_DIR), ids=lambda p: p.name)
def test_document_is_valid_openapi(path: Path) -> None:
    validate(load_document(path))


def test_merged_document_is_valid_openapi() -> None:
    validate(Documents(SPEC_DIR, "0").merged)


@pytest.mark.parametrize("name", NAMES)
def test_each_document_is_served_at_its_own_url(fake_app: TestClient, name: str) -> None:
    written = load_document(SPEC_DIR / f"{name}.yaml")
    as_json = fake_app.get(f"/openapi/{name}.json")
    assert as_json.status_code == 200
    assert as_json.headers["content-type"].startswith("application/json")
    assert as_json.json() == written
    as_yaml = fake_app.get(f"/openapi/{name}.yaml")
    assert as_yaml.status_code == 200
    assert as_yaml.headers["content-type"].startswith("application/yaml")
    assert yaml.safe_load(as_yaml.text) == written


def test_openapi_json_is_every_route_of_every_document(fake_app: TestClient) -> None:
    merged = fake_app.get("/openapi.json").json()
    for name in NAMES:
        assert set(load_document(SPEC_DIR / f"{name}.yaml")["paths"]) <= set(merged["paths"])
    assert yaml.safe_load(fake_app.get("/openapi.yaml").text) == merged


def test_unknown_document_is_a_404(fake_app: TestClient) -> None:
    assert fake_app.get("/openapi/no-such.json").status_code == 404
    assert fake_app.get("/openapi/openai.txt").status_code == 404


def test_swagger_ui_lists_every_document(fake_app: TestClient) -> None:
    redirect = fake_app.get("/docs", follow_redirects=False)
    assert redirect.status_code in (302, 307)
    page = fake_app.get("/docs/")
    assert page.status_code == 200
    for name in NAMES:
        assert f'"/openapi/{name}.json"' in page.text
    assert '"/openapi.json"' in page.text
    asset = fake_app.get("/docs/swagger-ui-bundle.js")
    assert asset.status_code == 200
    assert fake_app.get("/docs/../app.py").status_code == 404


def test_documents_need_no_key() -> None:
    for client in app_client(Settings(api_keys=("secret",))):
        assert client.get("/openapi/openai.json").status_code == 200
        assert client.get("/docs/").status_code == 200
        assert client.get("/v1/models").status_code == 401


def test_merge_prefixes_components_and_refuses_a_path_twice() -> None:
    one = {"openapi": "3.0.3", "tags": [{"name": "t"}],
           "paths": {"/a": {"get": {"tags": ["t"], "responses": {"200": {"$ref": "#/components/responses/R"}}}}},
           "components": {"responses": {"R": {"description": "r"}}}}
    merged = merge({"one": one}, "1")
    assert merged["paths"]["/a"]["get"]["responses"]["200"] == {"$ref": "#/components/responses/one.R"}
    assert merged["paths"]["/a"]["get"]["tags"] == ["one: t"]
    assert "one.R" in merged["components"]["responses"]
    validate(merged)
    with pytest.raises(ValueError, match="/a"):
        merge({"one": one, "two": one}, "1")
