"""Operations the API documents mark ``x-superfluid-admin: true`` are the ones the access guard keeps for admin
keys: the mark in the document and the guard's list cannot drift apart."""

from __future__ import annotations

import yaml

from superfluid.app import SPEC_DIR, SPECS
from superfluid.http.access import is_admin_route

METHODS = ("get", "put", "post", "delete", "patch")


def _marked() -> set[tuple[str, str]]:
    marked = set()
    for name in SPECS:
        document = yaml.safe_load((SPEC_DIR / name).read_text(encoding="utf-8"))
        for path, item in document["paths"].items():
            for method in METHODS:
                if (item.get(method) or {}).get("x-superfluid-admin") is True:
                    marked.add((method.upper(), path))
    return marked


def test_every_operation_marked_admin_is_guarded_as_admin() -> None:
    marked = _marked()
    assert {("POST", "/v1/lora/load"), ("POST", "/v1/lora/unload")} <= marked
    assert all(is_admin_route(method, path) for method, path in marked)


def test_showing_the_adapters_is_not_admin() -> None:
    assert ("GET", "/v1/lora") not in _marked()
    assert not is_admin_route("GET", "/v1/lora")
