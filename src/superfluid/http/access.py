"""Who may do what, before routing: per-IP rate, API key, admin routes, QoS ceiling, per-key rate and concurrency.

Checks run in that order, each refusal in the route's dialect:

1. ``--rate-limit``: a token bucket per client address (429 ``rate_limit_exceeded`` with Retry-After), with keys
   or without. Liveness routes are exempt.
2. The key (``Authorization: Bearer`` or ``X-Api-Key``) when the server has any: 401 ``invalid_api_key``. Every
   route needs it but the liveness routes: ``GET /health`` and Ollama's ``GET``/``HEAD /``, which answer only that
   the server runs (docs/security.md says why ``/`` is open).
3. Admin routes (model load/unload, LoRA load/unload) with a user key: 403 ``admin_required``.
4. ``x-superfluid-qos`` above the key's ceiling: 403 ``admin_required``. A request that names no class runs at
   the ceiling when the ceiling is below the route's default.
5. The key's request rate: 429 ``rate_limit_exceeded`` with Retry-After.
6. The key's requests in flight on POST routes: 429 ``concurrency_limit_exceeded`` with Retry-After.

A batch line (batches/dispatch.py) runs in process with ``BATCH_OWNER`` on its scope, which no client can set:
it runs as the key that created the batch (its allow-list applies; a key since removed is a 401), without the
per-IP and per-key rate and concurrency checks, which are for interactive callers. A web session's request
(web/replies.py) runs in process with ``WEB_KEY``: it is the key --web-key names, with every check of that key
(steps 3 to 6), as if it had presented it.

The key's id goes on the scope (``observe.KEY_ID``) and in the access log; its model allow-list goes on the
engine's RequestScope. SIGHUP reloads the key files (``AccessControl.reload``): requests in flight keep running,
and per-key counts carry over by key id.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

from superfluid.engine import QOS_RANK
from superfluid.errors import AdminRequired, AuthenticationFailed, ConcurrencyLimited, RateLimited, SuperfluidError
from superfluid.http.guards import send_error
from superfluid.http.keys import KeyGrant, KeyPolicyError, KeyRing, load_keyring
from superfluid.http.observe import BATCH_OWNER, KEY_ID, WEB_KEY, record_of
from superfluid.http.rate_limit import InFlight, TokenBuckets, default_burst
from superfluid.settings import Settings

log = logging.getLogger(__name__)

QOS_HEADER = b"x-superfluid-qos"
ADMIN_ROUTES = frozenset({("POST", "/v1/models/load"), ("POST", "/v1/models/unload"),
                          ("POST", "/v1/lora/load"), ("POST", "/v1/lora/unload")})
"""Routes only admin keys may call; ``DELETE /v1/models/{model}`` is one too."""
CONCURRENCY_RETRY_S = 1.0


def is_liveness(method: str, path: str) -> bool:
    return path == "/health" or (path == "/" and method in ("GET", "HEAD"))


def is_admin_route(method: str, path: str) -> bool:
    return (method, path) in ADMIN_ROUTES or (method == "DELETE" and path.startswith("/v1/models/"))


@dataclass
class AccessControl:
    """The running server's key ring (reloadable) and its per-key and per-IP counts."""

    api_keys: tuple[str, ...] = ()
    key_file: Path | None = None
    policy: Path | None = None
    rate_per_ip: float = 0.0
    ip_burst: int = 0
    keyring: KeyRing = field(default_factory=KeyRing)
    in_flight: InFlight = field(default_factory=InFlight)
    key_buckets: TokenBuckets = field(default_factory=lambda: TokenBuckets(1, 1.0))
    ip_buckets: TokenBuckets = field(default_factory=lambda: TokenBuckets(1, 1.0))

    @classmethod
    def from_settings(cls, settings: Settings) -> AccessControl:
        """Read the keys now; KeyPolicyError says what is wrong with a file."""
        burst = settings.rate_limit_burst or default_burst(settings.rate_limit)
        control = cls(api_keys=settings.api_keys, key_file=settings.api_key_file, policy=settings.key_policy,
                      rate_per_ip=settings.rate_limit, ip_burst=burst,
                      ip_buckets=TokenBuckets(burst, settings.rate_limit or 1.0))
        control.keyring = control.read()
        return control

    def read(self) -> KeyRing:
        return load_keyring(self.api_keys, self.key_file, self.policy)

    def reload(self) -> bool:
        """Read the key files again (SIGHUP); a file with an error leaves the keys as they were."""
        if self.key_file is None and self.policy is None:
            log.info("SIGHUP: no key file or key policy to reload")
            return False
        try:
            ring = self.read()
        except KeyPolicyError as exc:
            log.error("SIGHUP: keys not reloaded, the old ones stay in force: %s", exc)
            return False
        self.keyring = ring
        ids = ", ".join(g.id for g in ring.grants)
        log.info("SIGHUP: reloaded %d key(s): %s", len(ring.grants), ids)
        return True


def _presented(scope: Scope) -> bytes | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return bytes(value[7:].strip())
        if name == b"x-api-key":
            return bytes(value.strip())
    return None


def _header(scope: Scope, wanted: bytes) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == wanted:
            return bytes(value).decode("latin-1").strip().lower()
    return None


class AccessGuard:
    """The checks of the module, in its order."""

    def __init__(self, app: ASGIApp, *, control: AccessControl) -> None:
        self.app = app
        self.control = control

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        method, path = scope.get("method", "GET"), scope.get("path", "")
        if scope["type"] != "http" or is_liveness(method, path):
            await self.app(scope, receive, send)
            return
        control = self.control
        if BATCH_OWNER in scope:
            await self._batch_line(scope, receive, send)
            return
        web = WEB_KEY in scope
        refusal = None if web else self._ip_refusal(scope)
        grant = None
        if refusal is None and control.keyring.enabled:
            if web:
                grant = control.keyring.by_id(scope[WEB_KEY])
                if grant is None:
                    refusal = AuthenticationFailed(f"key '{scope[WEB_KEY]}' (--web-key) is not accepted")
            else:
                presented = _presented(scope)
                grant = control.keyring.find(presented) if presented is not None else None
                if grant is None:
                    reason = "missing API key" if presented is None else "invalid API key"
                    refusal = AuthenticationFailed(f"{reason}: send Authorization: Bearer <key> or X-Api-Key: "
                                                   "<key>")
        if refusal is None and grant is not None:
            refusal = self._grant_refusal(scope, grant, method, path)
        if refusal is not None:
            await send_error(scope, send, refusal)
            return
        if grant is None:
            await self.app(scope, receive, send)
            return
        scope = self._as_key(scope, grant)
        if not grant.max_concurrent or method != "POST":
            await self.app(scope, receive, send)
            return
        if not control.in_flight.enter(grant.id, grant.max_concurrent):
            await send_error(scope, send, ConcurrencyLimited(
                f"key '{grant.id}' already has {grant.max_concurrent} request(s) in flight (its limit)",
                retry_after_s=CONCURRENCY_RETRY_S))
            return
        try:
            await self.app(scope, receive, send)
        finally:
            control.in_flight.leave(grant.id)

    async def _batch_line(self, scope: Scope, receive: Receive, send: Send) -> None:
        owner = scope[BATCH_OWNER]
        ring = self.control.keyring
        if owner is not None and ring.enabled:
            grant = ring.by_id(owner)
            if grant is None:
                await send_error(scope, send, AuthenticationFailed(
                    f"key '{owner}', which created this batch, is no longer accepted"))
                return
            scope = self._as_key(scope, grant)
        await self.app(scope, receive, send)

    def _ip_refusal(self, scope: Scope) -> SuperfluidError | None:
        control = self.control
        if not control.rate_per_ip:
            return None
        client = scope.get("client")
        wait = control.ip_buckets.take(client[0] if client else "unknown")
        if not wait:
            return None
        return RateLimited(f"this client address is over its request rate ({control.rate_per_ip:g}/s, burst "
                           f"{control.ip_burst})", retry_after_s=wait)

    def _grant_refusal(self, scope: Scope, grant: KeyGrant, method: str, path: str) -> SuperfluidError | None:
        record = record_of(scope)
        if record is not None:
            record.key_id = grant.id
        if not grant.admin and is_admin_route(method, path):
            return AdminRequired(f"{method} {path} needs an admin key; key '{grant.id}' is a user key")
        qos = _header(scope, QOS_HEADER)
        if qos is not None and not grant.qos_allowed(qos):
            return AdminRequired(f"x-superfluid-qos '{qos}' is above the ceiling of key '{grant.id}' "
                                 f"({grant.qos_ceiling}); only an admin can raise it")
        if grant.rate_per_s:
            wait = self.control.key_buckets.take(grant.id, burst=grant.burst, rate_per_s=grant.rate_per_s)
            if wait:
                return RateLimited(f"key '{grant.id}' is over its request rate ({grant.rate_per_s:g}/s, burst "
                                   f"{grant.burst})", retry_after_s=wait)
        return None

    @staticmethod
    def _as_key(scope: Scope, grant: KeyGrant) -> Scope:
        """The scope downstream: the key's id, its allow-list on the RequestScope, its QoS ceiling as the class
        of a request that names none."""
        record = record_of(scope)
        if record is not None:
            record.usage.allowed_models = grant.models
        scope[KEY_ID] = grant.id
        ceiling = grant.qos_ceiling
        if ceiling is not None and QOS_RANK[ceiling] > 0 and _header(scope, QOS_HEADER) is None:
            scope = {**scope, "headers": [*scope.get("headers", ()), (QOS_HEADER, ceiling.encode())]}
        return scope
