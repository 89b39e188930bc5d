"""Ollama's model distribution routes (/api/pull, push, create, copy, delete, blobs): 501 for every method.

The models this server serves are the ones it was started with; it
neither pulls nor builds models. OpenAPI wants one operationId per method and path, so each gets a name
here, and all of them give the same refusal.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, NoReturn

from superfluid.errors import RouteNotServed

ROUTES = ("pull", "push", "create", "copy", "delete", "blobs")
METHODS = ("get", "post", "put", "patch", "delete")

Handler = Callable[..., Coroutine[Any, Any, NoReturn]]


def _refusal(route: str) -> Handler:
    """The handler for one route. It takes nothing but the blob path's digest, so Connexion never reads (or
    fails to parse) a request body: whatever the request carries, the answer is the 501."""
    error = RouteNotServed(f"/api/{route} is not served: superfluid does not pull, push, create, copy or delete "
                           "models; it serves the models it was started with")

    async def refuse() -> NoReturn:
        raise error

    async def refuse_blob(digest: str) -> NoReturn:
        raise error

    if route == "blobs":
        return refuse_blob
    return refuse


HANDLERS: dict[str, Handler] = {f"{route}_{method}": _refusal(route) for route in ROUTES for method in METHODS}
globals().update(HANDLERS)
