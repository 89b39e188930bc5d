"""/v1/files: upload (multipart), list, retrieve, download and delete stored files (state/files.py).

The upload arrives spooled by the multipart parser (on disk past 1 MiB); it is copied into the files directory on
a worker thread, fsynced, and then checked against --files-max-bytes and stored in one transaction (413
files_quota_exceeded when it does not fit). Under API keys a file belongs to the key that uploaded it: any other
key gets the 404 an unknown id gets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import IO, Any

from starlette.datastructures import UploadFile
from starlette.responses import JSONResponse, Response, StreamingResponse

from superfluid.errors import InvalidRequest, NotFound
from superfluid.handlers.context import key_id, services
from superfluid.state import StoredFile, as_storage_error

PURPOSES = ("assistants", "batch", "fine-tune", "user_data")
EXPIRES_MIN_S, EXPIRES_MAX_S = 3600, 30 * 86400
_CHUNK = 1024 * 1024


def _unknown(file_id: str) -> NotFound:
    return NotFound(f"no file '{file_id}': it is unknown, deleted or expired", param="file_id")


def _copy(source: IO[bytes], target: Path) -> int:
    """Copy an upload into ``target`` and fsync it; returns its size."""
    with target.open("wb") as out:
        shutil.copyfileobj(source, out, _CHUNK)
        out.flush()
        os.fsync(out.fileno())
        return out.tell()


def expires_after(body: dict[str, Any]) -> int | None:
    """The upload's ``expires_after`` seconds (the SDK's ``expires_after[...]`` form fields, or one form field
    holding the object as JSON), checked as OpenAI does: anchor created_at, 3600 to 2592000 seconds."""
    raw = body.get("expires_after")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raw = None
        if not isinstance(raw, dict):
            raise InvalidRequest("expires_after must be a JSON object {\"anchor\": \"created_at\", \"seconds\": N}",
                                 param="expires_after")
    if isinstance(raw, dict):
        anchor, seconds = raw.get("anchor"), raw.get("seconds")
    else:
        anchor, seconds = body.get("expires_after[anchor]"), body.get("expires_after[seconds]")
    if anchor is None and seconds is None:
        return None
    if anchor != "created_at":
        raise InvalidRequest("expires_after.anchor must be 'created_at'", param="expires_after.anchor")
    try:
        value = int(str(seconds))
    except ValueError:
        raise InvalidRequest("expires_after.seconds must be a whole number of seconds",
                             param="expires_after.seconds") from None
    if not EXPIRES_MIN_S <= value <= EXPIRES_MAX_S:
        raise InvalidRequest(f"expires_after.seconds must be between {EXPIRES_MIN_S} and {EXPIRES_MAX_S}",
                             param="expires_after.seconds")
    return value


async def create(body: dict[str, Any] | None = None, file: UploadFile | None = None) -> Response:
    body = body or {}
    if file is None or not isinstance(file, UploadFile):
        raise InvalidRequest("file is required: a multipart upload of the file's bytes", param="file")
    purpose = body.get("purpose")
    if purpose not in PURPOSES:
        raise InvalidRequest(f"purpose must be one of {', '.join(PURPOSES)}", param="purpose")
    seconds = expires_after(body)
    store = services().state.files
    temp = store.temp_path()
    try:
        size = await asyncio.to_thread(_copy, file.file, temp)
    except OSError as exc:  # the sessions directory is full, read-only or gone
        with contextlib.suppress(OSError):  # a read-only directory refuses the clean-up too
            temp.unlink(missing_ok=True)
        raise as_storage_error(exc) from exc
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink(missing_ok=True)
        raise
    record = await store.add(temp, filename=os.path.basename(file.filename or "upload"), purpose=purpose,
                             size=size, owner=key_id(), expires_after_s=seconds)
    return JSONResponse(record.to_object())


async def list_files(purpose: str | None = None, limit: int = 10000, order: str = "desc", after: str | None = None,
                     **_ignored: Any) -> Response:
    files, has_more = await services().state.files.page(owner=key_id(), purpose=purpose, limit=limit, order=order,
                                                        after=after)
    data = [f.to_object() for f in files]
    return JSONResponse({"object": "list", "data": data, "first_id": data[0]["id"] if data else None,
                         "last_id": data[-1]["id"] if data else None, "has_more": has_more})


async def _found(file_id: str) -> StoredFile:
    found = await services().state.files.get(file_id, owner=key_id())
    if found is None:
        raise _unknown(file_id)
    return found


async def retrieve(file_id: str) -> Response:
    return JSONResponse((await _found(file_id)).to_object())


async def content(file_id: str) -> Response:
    """The file's bytes, streamed from the backend's content store (state/contents.py), opened before the reply
    starts."""
    found = await _found(file_id)
    chunks = await services().state.files.open(found.id)
    if chunks is None:
        raise _unknown(file_id)
    return StreamingResponse(chunks, media_type="application/octet-stream",
                             headers={"content-length": str(found.bytes)})


async def delete(file_id: str) -> Response:
    if not await services().state.files.delete(file_id, owner=key_id()):
        raise _unknown(file_id)
    return JSONResponse({"id": file_id, "object": "file", "deleted": True})
