"""Who may use the web listener (docs/security.md, "The web listener").

Every request, the WebSocket upgrade included, passes these checks in order:

1. ``Host`` is exactly one of the listener's own values (``127.0.0.1:PORT``, ``localhost:PORT``): else 403
   ``forbidden_host``. This stops DNS rebinding, where a foreign site's name resolves to 127.0.0.1.
2. ``Origin``, when sent, is the listener's own origin: else 403 ``forbidden_origin``. Browsers send it on every
   POST and on WebSocket upgrades, which CORS does not protect.
3. ``Sec-Fetch-Site``, when sent, is ``same-origin`` or ``none``: else 403 ``cross_site``. Another port of
   localhost is ``same-site``, and refused too.
4. Every ``/web/*`` route but ``/web/health`` and ``/web/login`` needs the session cookie (given by
   ``/web/login`` for the per-launch token) or ``Authorization: Bearer <token>``: else 401 ``unauthorized``.

No response carries CORS headers. Every response carries a Content-Security-Policy that allows only the
listener's own scripts, styles and connections, and forbids framing.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable

from aiohttp import web

from superfluid.web.address import WebAddress

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

PUBLIC = frozenset({"/web/health", "/web/login"})
CSP = ("default-src 'self'; connect-src 'self' ws: wss:; style-src 'self'; img-src 'self' data:; "
       "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
SAFE_FETCH_SITES = frozenset({"same-origin", "none"})


def refusal(status: int, code: str, message: str) -> web.Response:
    return web.json_response({"error": {"code": code, "message": message}}, status=status)


class WebGuard:
    """The per-launch token and cookie secret, and the checks of the module."""

    def __init__(self, address: WebAddress) -> None:
        self.address = address
        self.token = secrets.token_urlsafe(32)
        self._cookie_value = secrets.token_urlsafe(32)
        self.port = address.port
        self.cookie_name = f"superfluid_web_{address.port}"

    def bound(self, port: int) -> None:
        """The port the listener got (when it asked for 0); the allowed Host and Origin values follow it."""
        self.port = port
        self.cookie_name = f"superfluid_web_{port}"

    def token_matches(self, presented: str) -> bool:
        return hmac.compare_digest(presented.encode(), self.token.encode())

    def authenticated(self, request: web.Request) -> bool:
        cookie = request.cookies.get(self.cookie_name)
        if cookie is not None and hmac.compare_digest(cookie.encode(), self._cookie_value.encode()):
            return True
        scheme, _, presented = request.headers.get("Authorization", "").partition(" ")
        return scheme.lower() == "bearer" and self.token_matches(presented.strip())

    def log_in(self, response: web.StreamResponse) -> None:
        response.set_cookie(self.cookie_name, self._cookie_value, httponly=True, samesite="Strict", path="/")

    def log_out(self, response: web.StreamResponse) -> None:
        response.del_cookie(self.cookie_name, path="/")

    def refuse(self, request: web.Request) -> web.Response | None:
        """The refusal of the module for this request, or None when it may go on."""
        if request.headers.get("Host") not in self.address.hosts(self.port):
            return refusal(403, "forbidden_host", "this listener answers only to its own loopback address")
        origin = request.headers.get("Origin")
        if origin is not None and origin not in self.address.origins(self.port):
            return refusal(403, "forbidden_origin", f"requests from origin '{origin}' are refused")
        site = request.headers.get("Sec-Fetch-Site")
        if site is not None and site not in SAFE_FETCH_SITES:
            return refusal(403, "cross_site", f"requests from another site ({site}) are refused")
        path = request.path
        if path.startswith("/web/") and path not in PUBLIC and not self.authenticated(request):
            return refusal(401, "unauthorized", "log in with the token printed when the server started "
                                                "(POST /web/login) or send Authorization: Bearer <token>")
        return None

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        response = self.refuse(request)
        if response is not None:
            return response
        try:
            return await handler(request)
        except web.HTTPException as exc:
            return refusal(exc.status, "not_found" if exc.status == 404 else "bad_request", exc.reason)


async def secure_headers(request: web.Request, response: web.StreamResponse) -> None:
    """On every response, streamed ones and the WebSocket upgrade included (aiohttp's on_response_prepare)."""
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    if request.path.startswith("/web/"):
        response.headers["Cache-Control"] = "no-store"
