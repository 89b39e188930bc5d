"""The typed clients generated from our documents (clients/python, by openapi-python-client) work against the
real server: every operation of every document is called through its generated function, not streamed, with
the document's example body (an upload a batch's JSONL, ids of a file, batch or stored response made for the
test; embedding and audio routes on the plain server's model of their kind, speech
for the audio ones), and must come back with a status the document declares, parsed into the model
the generated code says that status carries (the success model when the route can succeed).

Proof that the documents are precise enough to generate from, the first thing a contract-first team does.
The checked-in clients are current (tox -e client fails otherwise), so this exercises what users get.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import sys
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from conformance.conftest import ADMIN_KEY
from conformance.contract import Contract, Operation
from conformance.server import DEFAULT_MODEL
from conformance.speech import speak
from conformance.test_self_validation import (
    SPEECH_TEXT,
    UNPROVOKED_ON,
    batch_input,
    batch_request,
    body_schema,
    happy_body,
    media_model,
    properties,
    upload_request,
)

CLIENTS = Path(__file__).resolve().parents[1] / "clients" / "python"
CONTRACT = Contract()
PATH_VALUES = {"model": DEFAULT_MODEL, "id_slot": 0, "digest": "sha256:0"}


def package(document: str) -> ModuleType:
    project = CLIENTS / f"superfluid-{document}-client"
    assert project.is_dir(), f"no generated client for openapi/{document}.yaml (tox -e client -- --write)"
    if str(project) not in sys.path:
        sys.path.insert(0, str(project))
    return importlib.import_module(f"superfluid_{document}_client")


def snake(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()).strip("_")


def generated_function(operation: Operation) -> Any:
    root = package(operation.document)
    wanted = snake(operation.spec["operationId"])
    api = importlib.import_module(f"{root.__name__}.api")
    for info in pkgutil.walk_packages(api.__path__, prefix=f"{api.__name__}."):
        if info.name.rsplit(".", 1)[1] == wanted:
            return importlib.import_module(info.name).sync_detailed
    raise AssertionError(f"the generated client has no function for {operation.label} ({wanted})")


def arguments(operation: Operation, function: Any, model_id: str | None = None,
              fields: dict[str, Any] | None = None) -> dict[str, Any]:
    """The generated function's arguments; with ``model_id`` (a model of the operation's kind), the body names
    it, and a multipart body carries speech; ``fields`` go into the body as they are."""
    hints = typing.get_type_hints(function)
    kwargs: dict[str, Any] = {}
    file_name = ("speech.wav", "audio/wav")
    for name in inspect.signature(function).parameters:
        if name in PATH_VALUES:
            kwargs[name] = PATH_VALUES[name]
        elif name == "body":
            body = {**(happy_body(operation) or {}), **(fields or {})}
            if model_id is not None:
                body = {**body, "model": model_id}
                if body_schema(operation) is None:  # a multipart form: the audio routes
                    body["file"] = speak(SPEECH_TEXT)
            elif operation.label == "POST /v1/files":  # an upload: a batch's input
                body, file_name = {"file": batch_input(), "purpose": "batch"}, ("input.jsonl", "application/jsonl")
            if "stream" in properties(operation, body_schema(operation) or {}):
                body["stream"] = False
            model = next(kind for kind in typing.get_args(hints["body"]) or (hints["body"],)
                         if hasattr(kind, "from_dict"))
            kwargs["body"] = model.from_dict(body)
            if "file" in body:  # from_dict names no file, and httpx sends a nameless part as a plain field
                kwargs["body"].file.file_name, kwargs["body"].file.mime_type = file_name
    return kwargs


def stored_response(base_url: str) -> str:
    """The id of a response stored for the test, made from the document's example."""
    create = CONTRACT.operation("POST", "/v1/responses")
    assert create is not None
    reply = httpx.post(base_url + "/v1/responses", json=happy_body(create), timeout=120)
    assert reply.status_code == 200, reply.text
    return str(reply.json()["id"])


def uploaded_file(base_url: str) -> str:
    """The id of a batch input file uploaded for the test."""
    reply = httpx.request(**{**upload_request(), "url": base_url + "/v1/files"}, timeout=120)
    assert reply.status_code == 200, reply.text
    return str(reply.json()["id"])


def created_batch(base_url: str) -> str:
    """The id of a batch created for the test, on a file of its own."""
    request = batch_request(uploaded_file(base_url))
    reply = httpx.request(**{**request, "url": base_url + request["url"]}, timeout=120)
    assert reply.status_code == 200, reply.text
    return str(reply.json()["id"])


def expected_status(operation: Operation) -> int:
    """The route's success status; for a route that never succeeds (it is not served), its 501."""
    declared = sorted(int(key) for key in operation.spec["responses"] if key.isdigit())
    success = [status for status in declared if status < 300]
    assert success or 501 in declared, f"{operation.label} declares neither a success nor a 501"
    return success[0] if success else 501


@pytest.mark.parametrize("operation", CONTRACT.operations, ids=lambda operation: operation.label)
def test_generated_client_calls_the_route(operation: Operation, base_url: str, request: pytest.FixtureRequest) -> None:
    function = generated_function(operation)
    client_type = package(operation.document).Client
    model_id = media_model(operation)
    settings: dict[str, Any] = {"timeout": package(operation.document).client.httpx.Timeout(300)}
    if model_id is not None:  # embedding and speech routes: the plain server's model of their kind
        base_url = request.getfixturevalue("media_server").base_url
    elif "lora" in operation.spec.get("tags", []):  # adapters need an adapters directory: the keyed server's
        base_url = request.getfixturevalue("keyed_server").base_url
        client_type, settings["token"] = package(operation.document).AuthenticatedClient, ADMIN_KEY
    parameters = inspect.signature(function).parameters
    fields = {"input_file_id": uploaded_file(base_url)} if operation.label == "POST /v1/batches" else None
    kwargs = arguments(operation, function, model_id, fields)
    if "response_id" in parameters:  # a stored response of its own
        kwargs["response_id"] = stored_response(base_url)
    if "file_id" in parameters:  # a file of its own (no batch reads it, so it may be deleted)
        kwargs["file_id"] = uploaded_file(base_url)
    if "batch_id" in parameters:  # a batch of its own, just created (so it may be cancelled)
        kwargs["batch_id"] = created_batch(base_url)
    with client_type(base_url=base_url, **settings) as client:
        response = function(client=client, **kwargs)
    expected = expected_status(operation)
    if (operation.label, 200) in UNPROVOKED_ON:
        assert operation.declared(response.status_code) is not None, response.content[:300]
    else:
        assert response.status_code == expected, response.content[:300]
    assert response.parsed is not None, f"{operation.label}: the generated client parsed nothing"
    if 200 <= response.status_code < 300:
        assert type(response.parsed).__name__ != "ErrorResponse", response.parsed
