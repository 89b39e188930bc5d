"""create_app(settings): the Connexion app with its API documents, error rendering and the model lifespan."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import connexion
from connexion.lifecycle import ConnexionRequest, ConnexionResponse
from connexion.middleware import ConnexionMiddleware, MiddlewarePosition
from connexion.middleware.routing import RoutingMiddleware
from connexion.options import SwaggerUIOptions

from superfluid.errors import EngineFailure, InvalidRequest, NotFound, SuperfluidError
from superfluid.handlers.context import ClientDisconnected
from superfluid.http.dialect import Dialect, error_body
from superfluid.http.guards import ApiKeyGuard, BodyLimit, NewlinesInPaths, OllamaBodiesAreJson
from superfluid.http.routing import ChainedRoutingMiddleware
from superfluid.http.streams import dumps
from superfluid.http.validation import TypedJSONBodyValidator
from superfluid.services import Services
from superfluid.settings import Settings

log = logging.getLogger(__name__)

SPEC_DIR = Path(__file__).resolve().parent / "openapi"
SPECS = ("openai.yaml", "ollama.yaml", "anthropic.yaml")


def _render(request: ConnexionRequest, error: SuperfluidError) -> ConnexionResponse:
    body = error_body(Dialect.for_path(request.url.path), error)
    return ConnexionResponse(
        status_code=error.status,
        mimetype="application/json",
        body=dumps(body).encode(),
        headers=error.headers,
    )


def _on_superfluid_error(request: ConnexionRequest, exc: Exception) -> ConnexionResponse:
    assert isinstance(exc, SuperfluidError)
    return _render(request, exc)


def _on_problem(request: ConnexionRequest, exc: Exception) -> ConnexionResponse:
    """Connexion's and Starlette's own problems (unknown route, wrong method, bad content type)."""
    status = int(getattr(exc, "status", None) or getattr(exc, "status_code", None) or 400)
    detail = str(getattr(exc, "detail", None) or getattr(exc, "title", None) or exc)
    error: SuperfluidError
    if status == 404:
        error = NotFound(f"no route for {request.method} {request.url.path}")
    elif status >= 500:
        error = EngineFailure(detail)
    else:
        error = InvalidRequest(detail)
        error.status = status  # type: ignore[misc]  # 405/415 keep their own status
    return _render(request, error)


def _on_client_gone(_request: ConnexionRequest, _exc: Exception) -> ConnexionResponse:
    return ConnexionResponse(status_code=499, body=b"")


def _on_unexpected(request: ConnexionRequest, exc: Exception) -> ConnexionResponse:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return _render(request, EngineFailure("internal error; see the server log"))


def create_app(settings: Settings, services: Services | None = None) -> connexion.AsyncApp:
    """Build the ASGI app. ``services`` may be injected by tests; by default it is built at start-up."""

    @asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[dict[str, Any]]:
        own = services is None
        active = services or Services.from_settings(settings)
        await active.start()
        try:
            yield {"services": active}
        finally:
            if own:
                await active.close()

    app = connexion.AsyncApp(
        __name__,
        specification_dir=str(SPEC_DIR),
        lifespan=lifespan,
        validator_map={"body": {"application/json": TypedJSONBodyValidator}},
        swagger_ui_options=SwaggerUIOptions(swagger_ui_path="/docs", spec_path="/openapi.json"),
        # Connexion's own routing loses all but the first and last of three documents at one base path.
        middlewares=[ChainedRoutingMiddleware if m is RoutingMiddleware else m
                     for m in ConnexionMiddleware.default_middlewares],
    )
    for spec in SPECS:
        app.add_api(spec, strict_validation=False, validate_responses=False)
    app.add_error_handler(SuperfluidError, _on_superfluid_error)
    from connexion.exceptions import ProblemException
    from starlette.exceptions import HTTPException

    app.add_error_handler(ProblemException, _on_problem)
    app.add_error_handler(HTTPException, _on_problem)
    app.add_error_handler(ClientDisconnected, _on_client_gone)
    app.add_error_handler(Exception, _on_unexpected)
    app.add_middleware(OllamaBodiesAreJson, position=MiddlewarePosition.BEFORE_EXCEPTION)
    app.add_middleware(ApiKeyGuard, position=MiddlewarePosition.BEFORE_EXCEPTION, api_key=settings.api_key)
    app.add_middleware(BodyLimit, position=MiddlewarePosition.BEFORE_EXCEPTION, max_bytes=settings.max_body_bytes)
    app.add_middleware(NewlinesInPaths, position=MiddlewarePosition.BEFORE_EXCEPTION)
    return app
