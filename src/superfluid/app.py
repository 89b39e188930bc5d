"""create_app(settings): the Connexion app with its API documents, error rendering and the model lifespan."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import connexion
from connexion.lifecycle import ConnexionRequest, ConnexionResponse
from connexion.middleware import ConnexionMiddleware, MiddlewarePosition
from connexion.middleware.routing import RoutingMiddleware
from connexion.options import SwaggerUIOptions
from starlette.middleware.cors import CORSMiddleware

from superfluid import __version__
from superfluid.batches.dispatch import InProcess
from superfluid.batches.runner import BatchRunner
from superfluid.errors import EngineFailure, InvalidRequest, NotFound, SuperfluidError
from superfluid.handlers.generation import ClientDisconnected
from superfluid.handlers.routes import resolver
from superfluid.http.access import AccessControl, AccessGuard
from superfluid.http.dialect import Dialect, error_body
from superfluid.http.documents import DocumentRoutes, Documents, document_paths
from superfluid.http.guards import BodyLimit, LastResort, NewlinesInPaths, OllamaBodiesAreJson
from superfluid.http.metrics import Metrics
from superfluid.http.observe import RequestObserver, RouteTable, note_error
from superfluid.http.routing import ChainedRoutingMiddleware
from superfluid.http.streams import dumps
from superfluid.http.upload_quota import UploadQuota
from superfluid.http.validation import TypedJSONBodyValidator
from superfluid.services import Services
from superfluid.settings import Settings

if TYPE_CHECKING:
    from superfluid.web.listener import WebListener

log = logging.getLogger(__name__)

SPEC_DIR = Path(__file__).resolve().parent / "openapi"
# Every document in openapi/ is routed (and published by http/documents.py); a new one needs no code here.
SPECS = tuple(path.name for path in document_paths(SPEC_DIR))


def _render(request: ConnexionRequest, error: SuperfluidError) -> ConnexionResponse:
    note_error(request.scope, error)
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


CORS_HEADERS = ("authorization", "x-api-key", "content-type", "x-superfluid-qos", "x-superfluid-batch-invariant",
                "anthropic-version", "anthropic-beta")
CORS_EXPOSED = ("x-superfluid-warm", "x-superfluid-keepalive", "retry-after")


def _on_sighup(access: AccessControl) -> Callable[[], None]:
    """Reload the key files on SIGHUP while the app runs (only where signals can be caught: the main thread)."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGHUP, access.reload)
    except (ValueError, RuntimeError, NotImplementedError, AttributeError):
        return lambda: None

    def stop() -> None:
        loop.remove_signal_handler(signal.SIGHUP)

    return stop


async def _start_batches(services: Services, app: Any, state: dict[str, Any]) -> None:
    """The batch runner sends its lines through this app, in process (batches/dispatch.py)."""
    services.batches = BatchRunner(services.state, InProcess(app, state),
                                   default_model=lambda: services.models.default_id,
                                   lines_in_flight=services.settings.parallel)
    await services.batches.start()


async def _start_web(services: Services, app: Any, state: dict[str, Any]) -> WebListener | None:
    """The web listener (--web, docs/web.md), on this loop, sending its sessions' requests through this app."""
    settings = services.settings
    if settings.web is None:
        return None
    from superfluid.web.address import WebAddress
    from superfluid.web.listener import WebListener, announce

    listener = WebListener(WebAddress.parse(settings.web), services.state.web_sessions, InProcess(app, state),
                           web_key=settings.web_key, default_model=lambda: services.models.default_id)
    announce(await listener.start())
    return listener


def create_app(settings: Settings, services: Services | None = None, *,
               access: AccessControl | None = None) -> connexion.AsyncApp:
    """Build the ASGI app. ``services`` may be injected by tests; by default it is built at start-up.
    ``access`` (keys and limits) is read from the settings unless given; a bad key file raises KeyPolicyError."""
    access = access or AccessControl.from_settings(settings)
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[dict[str, Any]]:
        own = services is None
        active = services or Services.from_settings(settings)
        await active.start()
        if isinstance(active, Services):  # unit tests inject stand-ins without models
            metrics.watch(active.models.figures)
        stop_watching = _on_sighup(access)
        state: dict[str, Any] = {"services": active, "metrics": metrics, "access": access}
        web = None
        if isinstance(active, Services):
            await _start_batches(active, app, state)
            web = await _start_web(active, app, state)
        try:
            yield state
        finally:
            stop_watching()
            if web is not None:
                await web.stop()
            if own:
                await active.close()

    app = connexion.AsyncApp(
        __name__,
        specification_dir=str(SPEC_DIR),
        lifespan=lifespan,
        validator_map={"body": {"application/json": TypedJSONBodyValidator}},
        # The documents and Swagger UI are published by DocumentRoutes (Connexion's would put every
        # document at the same /openapi.json, since they share the base path "/").
        swagger_ui_options=SwaggerUIOptions(serve_spec=False, swagger_ui=False),
        # Connexion's own routing loses all but the first and last of three documents at one base path.
        middlewares=[ChainedRoutingMiddleware if m is RoutingMiddleware else m
                     for m in ConnexionMiddleware.default_middlewares],
    )
    for spec in SPECS:
        app.add_api(spec, resolver=resolver(), strict_validation=False, validate_responses=False)
    app.add_error_handler(SuperfluidError, _on_superfluid_error)
    from connexion.exceptions import ProblemException
    from starlette.exceptions import HTTPException

    app.add_error_handler(ProblemException, _on_problem)
    app.add_error_handler(HTTPException, _on_problem)
    app.add_error_handler(ClientDisconnected, _on_client_gone)
    app.add_error_handler(Exception, _on_unexpected)
    # Outermost first: every request is observed; CORS answers preflights and labels refusals too.
    app.add_middleware(RequestObserver, position=MiddlewarePosition.BEFORE_EXCEPTION,
                       routes=RouteTable.from_documents(SPEC_DIR / spec for spec in SPECS), metrics=metrics)
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, position=MiddlewarePosition.BEFORE_EXCEPTION,
                           allow_origins=list(settings.cors_origins), allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=list(CORS_HEADERS), expose_headers=list(CORS_EXPOSED), max_age=600)
    # Inside the observer (which counts its answers), outside every other guard.
    app.add_middleware(LastResort, position=MiddlewarePosition.BEFORE_EXCEPTION)
    # Before the key guard: the documents are public (see http/documents.py).
    app.add_middleware(DocumentRoutes, position=MiddlewarePosition.BEFORE_EXCEPTION,
                       documents=Documents(SPEC_DIR, __version__))
    app.add_middleware(AccessGuard, position=MiddlewarePosition.BEFORE_EXCEPTION, control=access)
    app.add_middleware(UploadQuota, position=MiddlewarePosition.BEFORE_EXCEPTION)
    app.add_middleware(OllamaBodiesAreJson, position=MiddlewarePosition.BEFORE_EXCEPTION)
    app.add_middleware(BodyLimit, position=MiddlewarePosition.BEFORE_EXCEPTION, max_bytes=settings.max_body_bytes)
    app.add_middleware(NewlinesInPaths, position=MiddlewarePosition.BEFORE_EXCEPTION)
    return app
