"""The typed clients generated from our documents (clients/python, by openapi-python-client) work against the
real server: every operation of every document is called through its generated function, not streamed, with
the document's example body, and must come back with a status the document declares, parsed into the model
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

import pytest

from conformance.contract import Contract, Operation
from conformance.server import DEFAULT_MODEL
from conformance.test_self_validation import UNPROVOKED_ON, body_schema, happy_body, properties

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


def arguments(operation: Operation, function: Any) -> dict[str, Any]:
    hints = typing.get_type_hints(function)
    kwargs: dict[str, Any] = {}
    for name in inspect.signature(function).parameters:
        if name in PATH_VALUES:
            kwargs[name] = PATH_VALUES[name]
        elif name == "body":
            body = happy_body(operation) or {}
            if "stream" in properties(operation, body_schema(operation) or {}):
                body["stream"] = False
            model = next(kind for kind in typing.get_args(hints["body"]) or (hints["body"],)
                         if hasattr(kind, "from_dict"))
            kwargs["body"] = model.from_dict(body)
    return kwargs


def expected_status(operation: Operation) -> int:
    """The route's success status; for a route that never succeeds (it is not served), its 501."""
    declared = sorted(int(key) for key in operation.spec["responses"] if key.isdigit())
    success = [status for status in declared if status < 300]
    assert success or 501 in declared, f"{operation.label} declares neither a success nor a 501"
    return success[0] if success else 501


@pytest.mark.parametrize("operation", CONTRACT.operations, ids=lambda operation: operation.label)
def test_generated_client_calls_the_route(operation: Operation, base_url: str) -> None:
    function = generated_function(operation)
    client_type = package(operation.document).Client
    with client_type(base_url=base_url, timeout=package(operation.document).client.httpx.Timeout(120)) as client:
        response = function(client=client, **arguments(operation, function))
    expected = expected_status(operation)
    if (operation.label, 200) in UNPROVOKED_ON:
        assert operation.declared(response.status_code) is not None, response.content[:300]
    else:
        assert response.status_code == expected, response.content[:300]
    assert response.parsed is not None, f"{operation.label}: the generated client parsed nothing"
    if 200 <= response.status_code < 300:
        assert type(response.parsed).__name__ != "ErrorResponse", response.parsed
