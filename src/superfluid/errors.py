"""Typed errors, rendered in one place by the dialect of the path they happened on.

The tree (status, OpenAI ``type``, ``code``)::

    SuperfluidError                      500 server_error
    ├── InvalidRequest                   400 invalid_request_error
    │   ├── ContextLengthExceeded        400  code=context_length_exceeded
    │   ├── UnsupportedParameter         400  code=unsupported_parameter
    │   ├── UnsupportedInput             400  code=unsupported_input
    │   ├── UnsupportedModel             400  code=unsupported_model
    │   ├── FimUnsupported               400  code=fim_unsupported
    │   ├── UnsupportedRuntime           400  code=unsupported_runtime
    │   ├── DeviceMemoryExceeded         400  code=insufficient_device_memory  param=n_gpu_layers
    │   ├── UnknownDevice                400  code=unknown_device
    │   ├── ConstraintUnsatisfiable      400  message starts "constraint unsatisfiable: "
    │   └── AdapterRefused               400  code=invalid_lora_adapter  param=path
    ├── AuthenticationFailed             401 authentication_error  code=invalid_api_key
    ├── AdminRequired                    403 permission_error      code=admin_required
    ├── NotFound                         404 not_found_error
    │   └── ModelNotFound                404  param=model
    ├── RequestTimeout                   408 invalid_request_error code=request_timeout
    ├── Conflict                         409 invalid_request_error
    │   ├── FileInUse                    409  code=file_in_use
    │   └── BatchNotCancellable          409  code=batch_not_cancellable
    ├── PayloadTooLarge                  413 invalid_request_error code=payload_too_large
    │   └── FilesQuotaExceeded           413  code=files_quota_exceeded
    ├── HeaderFieldsTooLarge             431 invalid_request_error code=request_header_fields_too_large
    ├── RateLimited                      429 rate_limit_error      code=rate_limit_exceeded (carries Retry-After)
    │   ├── ConcurrencyLimited           429  code=concurrency_limit_exceeded
    │   ├── CompletionRateLimited        429  code=completion_rate_limited
    │   └── BatchQueueFull               429  code=batch_queue_full
    ├── RouteRetired                     501 invalid_request_error code=route_retired
    ├── RouteNotServed                   501 invalid_request_error code=route_not_served
    ├── TooManyConnections               503 server_error          code=too_many_connections
    ├── FleetUnavailable                 503 server_error          code=replica_unavailable
    ├── StorageUnavailable               503 server_error          code=storage_unavailable
    ├── StorageFull                      507 server_error          code=storage_full
    └── EngineFailure                    500 server_error
        └── ReplicaFailed                500  code=replica_failed

Handlers and the engine raise these; a code is the class's, never chosen at the raise site.
``superfluid.http.dialect`` renders them in the dialect of the path, before a reply's first byte
(``error_body``) and as the frame that ends a stream that failed after it (``Dialect.error_frame``).
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

log = logging.getLogger(__name__)


class SuperfluidError(Exception):
    """Base of every error the server reports to a client."""

    status: ClassVar[int] = 500
    error_type: ClassVar[str] = "server_error"
    default_code: ClassVar[str | None] = None

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code if code is not None else self.default_code
        self.headers: dict[str, str] = dict(headers or {})

    def openai_body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.error_type,
                "param": self.param,
                "code": self.code,
            }
        }


class InvalidRequest(SuperfluidError):
    status = 400
    error_type = "invalid_request_error"


class ContextLengthExceeded(InvalidRequest):
    default_code = "context_length_exceeded"


class UnsupportedParameter(InvalidRequest):
    default_code = "unsupported_parameter"


class UnsupportedInput(InvalidRequest):
    default_code = "unsupported_input"


class UnsupportedModel(InvalidRequest):
    default_code = "unsupported_model"


class FimUnsupported(InvalidRequest):
    default_code = "fim_unsupported"


class UnsupportedRuntime(InvalidRequest):
    """/v1/models/load: the runtime asked for is missing, or it cannot read the model's file."""

    default_code = "unsupported_runtime"


class DeviceMemoryExceeded(InvalidRequest):
    """An explicit ``-ngl`` (or ``n_gpu_layers``) whose layers do not fit the offload devices' free memory."""

    default_code = "insufficient_device_memory"


class UnknownDevice(InvalidRequest):
    """A ``--device`` or ``--override-tensor`` buffer type this server's llama.cpp build does not have."""

    default_code = "unknown_device"


class ConstraintUnsatisfiable(InvalidRequest):
    def __init__(self, detail: str, *, param: str | None = None) -> None:
        super().__init__(f"constraint unsatisfiable: {detail}", param=param)


class AdapterRefused(InvalidRequest):
    """A LoRA adapter the server will not apply: unknown, outside the adapters directory, or not fit for the model."""

    default_code = "invalid_lora_adapter"

    def __init__(self, message: str, *, param: str = "path") -> None:
        super().__init__(message, param=param)


class AuthenticationFailed(SuperfluidError):
    status = 401
    error_type = "authentication_error"
    default_code = "invalid_api_key"


class AdminRequired(SuperfluidError):
    status = 403
    error_type = "permission_error"
    default_code = "admin_required"


class NotFound(SuperfluidError):
    status = 404
    error_type = "not_found_error"


class ModelNotFound(NotFound):
    def __init__(self, model: str) -> None:
        super().__init__(f"The model '{model}' does not exist; GET /v1/models lists the known ids.",
                         param="model")


class PayloadTooLarge(SuperfluidError):
    status = 413
    error_type = "invalid_request_error"
    default_code = "payload_too_large"


class FilesQuotaExceeded(PayloadTooLarge):
    """An upload would take the file store past --files-max-bytes."""

    default_code = "files_quota_exceeded"


class Conflict(SuperfluidError):
    """The request is valid but the thing it names is in a state that refuses it (a file a running batch
    reads; a batch that already ended)."""

    status = 409
    error_type = "invalid_request_error"


class FileInUse(Conflict):
    """A file a batch that has not ended reads."""

    default_code = "file_in_use"


class BatchNotCancellable(Conflict):
    """A batch that already ended (or is ending)."""

    default_code = "batch_not_cancellable"


class RequestTimeout(SuperfluidError):
    """The client was too slow sending its request head or body (answered by http/connections.py)."""

    status = 408
    error_type = "invalid_request_error"
    default_code = "request_timeout"


class HeaderFieldsTooLarge(SuperfluidError):
    status = 431
    error_type = "invalid_request_error"
    default_code = "request_header_fields_too_large"


class TooManyConnections(SuperfluidError):
    status = 503
    error_type = "server_error"
    default_code = "too_many_connections"


class FleetUnavailable(SuperfluidError):
    """The fleet head found no replica able to answer (all failed or none is running)."""

    status = 503
    error_type = "server_error"
    default_code = "replica_unavailable"


class StorageUnavailable(SuperfluidError):
    """The sessions directory cannot be written or read now (read-only, removed, unreadable): nothing was
    stored; generation without storage goes on, and storing works again once the fault clears."""

    status = 503
    error_type = "server_error"
    default_code = "storage_unavailable"


class StorageFull(SuperfluidError):
    """The file system under the sessions directory is full: nothing was stored (the write rolled back)."""

    status = 507
    error_type = "server_error"
    default_code = "storage_full"


class RateLimited(SuperfluidError):
    status = 429
    error_type = "rate_limit_error"
    default_code = "rate_limit_exceeded"

    def __init__(self, message: str, *, retry_after_s: float) -> None:
        seconds = max(1, int(retry_after_s + 0.999))
        super().__init__(message, headers={"retry-after": str(seconds)})


class ConcurrencyLimited(RateLimited):
    """Every lane (or the key's share of them) is busy."""

    default_code = "concurrency_limit_exceeded"


class CompletionRateLimited(RateLimited):
    """A client's fill-in-the-middle requests are over its token bucket."""

    default_code = "completion_rate_limited"


class BatchQueueFull(RateLimited):
    """Too many batches wait to start."""

    default_code = "batch_queue_full"


class RouteRetired(SuperfluidError):
    status = 501
    error_type = "invalid_request_error"
    default_code = "route_retired"


class RouteNotServed(SuperfluidError):
    """A route another server's API has and this one deliberately does not serve (Ollama's model distribution)."""

    status = 501
    error_type = "invalid_request_error"
    default_code = "route_not_served"


class EngineFailure(SuperfluidError):
    status = 500
    error_type = "server_error"


class ReplicaFailed(EngineFailure):
    """The fleet replica serving a stream failed after the stream began."""

    default_code = "replica_failed"


def as_superfluid_error(exc: Exception) -> SuperfluidError:
    """``exc`` as the error a client is told of; anything unexpected is logged whole and reported as an engine
    failure, never with its text."""
    if isinstance(exc, SuperfluidError):
        return exc
    log.exception("stream failed", exc_info=exc)
    return EngineFailure("the engine failed while streaming; see the server log")
