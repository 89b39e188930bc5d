"""The black-box compatibility suite: checks grouped by dialect, run against any server by its base URL.

A check is a function of a ``Target`` that raises ``AssertionError`` (or any exception) to fail. It names the
routes it needs; a route the target does not serve (probed once: 404 or 405 to a request that any serving
route would answer otherwise) makes the check "not served" rather than failed. Dialects are plug-ins: a module
that exposes ``CHECKS`` (built with ``Checks.check``) and is named in ``DIALECTS``.
"""

from __future__ import annotations

import importlib
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

Status = Literal["pass", "fail", "not served"]
PROBE_TIMEOUT_S = 15.0

# Dialect name -> the module holding its checks. A new dialect is one module and one line here.
DIALECTS: dict[str, str] = {
    "openai": "superfluid.conformance.openai_checks",
    "anthropic": "superfluid.conformance.anthropic_checks",
    "ollama": "superfluid.conformance.ollama_checks",
}


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # may hold "{model}", filled with the target's model id

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


@dataclass(frozen=True)
class Check:
    dialect: str
    name: str
    description: str
    routes: tuple[Route, ...]
    run: Callable[[Target], None]


@dataclass
class Result:
    dialect: str
    name: str
    description: str
    status: Status
    detail: str = ""
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"dialect": self.dialect, "name": self.name, "description": self.description, "status": self.status,
                "detail": self.detail, "seconds": round(self.seconds, 3)}


@dataclass
class Target:
    """The server under test, with the clients the checks speak to it through."""

    base_url: str
    model: str = ""
    api_key: str = "unused"
    timeout_s: float = 120.0
    _served: dict[Route, bool] = field(default_factory=dict)
    _http: httpx.Client | None = None

    @property
    def http(self) -> httpx.Client:
        if self._http is None:
            headers = {"authorization": f"Bearer {self.api_key}"}
            # A fresh connection per request: a server that closes idle keep-alive connections must not fail
            # the next check with a protocol error that says nothing about its API.
            self._http = httpx.Client(base_url=self.base_url, timeout=self.timeout_s, headers=headers,
                                      limits=httpx.Limits(max_keepalive_connections=0))
        return self._http

    def close(self) -> None:
        if self._http is not None:
            self._http.close()

    def path(self, template: str) -> str:
        return template.replace("{model}", self.model)

    def serves(self, route: Route) -> bool:
        """Whether the target routes ``route``: an empty JSON object (POST) or a plain GET that comes back 404
        or 405 means it does not; any other answer, an error or a probe still running after 15 s included,
        means the route is there. A connection that fails means it is not."""
        if route not in self._served:
            url = self.path(route.path)
            try:
                if route.method == "GET":
                    response = self.http.get(url, timeout=PROBE_TIMEOUT_S)
                else:
                    response = self.http.request(route.method, url, json={}, timeout=PROBE_TIMEOUT_S)
                self._served[route] = response.status_code not in (404, 405) or _model_not_found(response)
            except httpx.TimeoutException:
                # Still working on the empty request (a server may generate from defaults): the route is there.
                self._served[route] = True
            except httpx.HTTPError:
                self._served[route] = False
        return self._served[route]

    def discover_model(self) -> str:
        """The first model the target lists (OpenAI's /v1/models, else Ollama's /api/tags)."""
        for path, key, field_name in (("/v1/models", "data", "id"), ("/api/tags", "models", "model")):
            try:
                response = self.http.get(path)
                if response.status_code == 200:
                    entries = response.json().get(key) or []
                    if entries:
                        return str(entries[0][field_name])
            except (httpx.HTTPError, ValueError, KeyError, TypeError, AttributeError):
                continue
        raise RuntimeError(f"{self.base_url} lists no model on /v1/models or /api/tags; pass --model")


def _model_not_found(response: httpx.Response) -> bool:
    """A 404 that names a model (GET /v1/models/{model} for a model the target does not know) is a served
    route answering, not a missing one."""
    return response.status_code == 404 and "model" in response.text.lower()


class Checks:
    """One dialect's list of checks, filled by the ``check`` decorator."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self.items: list[Check] = []

    def check(self, name: str, *routes: str) -> Callable[[Callable[[Target], None]], Callable[[Target], None]]:
        """Register ``fn`` as check ``name``, needing ``routes`` ("METHOD /path"); its docstring describes it."""

        def register(fn: Callable[[Target], None]) -> Callable[[Target], None]:
            parsed = tuple(Route(*route.split(" ", 1)) for route in routes)
            description = (fn.__doc__ or name).strip().splitlines()[0]
            self.items.append(Check(self.dialect, name, description, parsed, fn))
            return fn

        return register


def checks_of(dialect: str) -> list[Check]:
    module = importlib.import_module(DIALECTS[dialect])
    registry: Checks = module.CHECKS
    return list(registry.items)


def run_check(check: Check, target: Target) -> Result:
    result = Result(check.dialect, check.name, check.description, "pass")
    absent = [route for route in check.routes if not target.serves(route)]
    if absent:
        result.status = "not served"
        result.detail = ", ".join(str(route) for route in absent) + " not served"
        return result
    started = time.monotonic()
    try:
        check.run(target)
    except AssertionError as exc:
        result.status, result.detail = "fail", str(exc) or _where(exc)
    except Exception as exc:  # any failure of the target is a failed check, reported as such
        result.status, result.detail = "fail", f"{type(exc).__name__}: {exc}"
    result.seconds = time.monotonic() - started
    return result


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    return f"assertion failed at {last.name}:{last.lineno}" if last else "assertion failed"


def run(target: Target, dialects: Iterable[str]) -> Iterator[Result]:
    for dialect in dialects:
        for check in checks_of(dialect):
            yield run_check(check, target)
