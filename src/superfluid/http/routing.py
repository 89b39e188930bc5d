"""Connexion's routing middleware, able to serve any number of documents at one base path.

Connexion 3.3 mounts each document's routes at its base path and, when a base path is taken already, chains the
new document behind the earlier ones: a request no route of the first document matches goes on to the next.
But it makes the new document the fallback of *every* earlier one, so a third document at the same base path
replaces the second in the chain and the second's routes answer 404. Here each new document goes to the end of
the chain instead, so all of them are reached, in the order they were added.
"""

from __future__ import annotations

from typing import Any

from connexion.middleware.routing import RoutingAPI, RoutingMiddleware
from starlette.routing import Mount, Router


class ChainedRoutingMiddleware(RoutingMiddleware):  # type: ignore[misc]
    """Drop-in for Connexion's RoutingMiddleware (same place in the stack). Middleware positioned with
    ``MiddlewarePosition.BEFORE_ROUTING`` cannot find it; the app positions its own middleware before the
    exception handler instead."""

    def add_api(self, specification: Any, base_path: str | None = None, arguments: dict[str, Any] | None = None,
                **kwargs: Any) -> None:
        api = RoutingAPI(specification, base_path=base_path, arguments=arguments, next_app=self.app, **kwargs)
        for route in self.router.routes:
            if isinstance(route, Mount) and route.path == api.base_path and isinstance(route.app, Router):
                tail: Router = route.app
                while isinstance(tail.default, Router):
                    tail = tail.default
                tail.default = api.router
                return
        self.router.mount(api.base_path, app=api.router)
