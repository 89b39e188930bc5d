"""Ollama's model distribution routes (/api/pull, push, create, copy, delete, blobs): 501 for every method.

The models this server serves are the ones it was started with; it
neither pulls nor builds models. Every method of each route has an operation name of its own
(handlers/routes.py), and all of a route's names come here, to the same refusal.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, NoReturn

from superfluid.errors import RouteNotServed

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


pull = _refusal("pull")
push = _refusal("push")
create = _refusal("create")
copy = _refusal("copy")
delete = _refusal("delete")
blobs = _refusal("blobs")
