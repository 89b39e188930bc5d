"""``POST /v1/files``: refuse an upload that cannot fit under --files-max-bytes before reading its body.

The Content-Length of a multipart upload is the file plus a little framing and the other form fields, so a body
longer than the store's free room plus ``FRAMING_ALLOWANCE`` holds a file that cannot fit: it is a 413
``files_quota_exceeded`` at once, and the client sends nothing more. Uploads this cannot rule out are read and
then checked exactly when they are stored (state/files.py), which also settles concurrent uploads.
"""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from superfluid.errors import FilesQuotaExceeded, StorageFull, StorageUnavailable
from superfluid.http.guards import send_error
from superfluid.state import FileStore

FRAMING_ALLOWANCE = 64 * 1024
"""Bytes of a multipart body assumed to be something other than the file: boundaries, headers, ``purpose``."""


def _file_store(scope: Scope) -> FileStore | None:
    state: Any = scope.get("state") or {}
    services = state.get("services") if isinstance(state, dict) else None
    store = getattr(getattr(services, "state", None), "files", None)
    return store if isinstance(store, FileStore) else None


class UploadQuota:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "POST" and scope.get("path") == "/v1/files":
            store = _file_store(scope)
            declared = dict(scope.get("headers", ())).get(b"content-length")
            if store is not None and store.bounds.max_bytes > 0 and declared is not None and declared.isdigit():
                try:
                    used = (await store.usage())[1]
                except (StorageFull, StorageUnavailable) as exc:  # the store cannot be read now: its own answer
                    await send_error(scope, send, exc)
                    return
                free = max(0, store.bounds.max_bytes - used)
                if int(declared) - FRAMING_ALLOWANCE > free:
                    await send_error(scope, send, FilesQuotaExceeded(
                        f"the file store has {free} of its {store.bounds.max_bytes} bytes free (--files-max-bytes); "
                        f"an upload of {int(declared)} bytes does not fit. Delete files to make room."))
                    return
        await self.app(scope, receive, send)
