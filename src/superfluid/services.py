"""The long-lived objects a running server shares with its handlers (held in the ASGI lifespan state)."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

from superfluid.batches.runner import BatchRunner
from superfluid.engine import ModelRegistry
from superfluid.http.offload import Offload
from superfluid.http.rate_limit import TokenBuckets
from superfluid.settings import Settings
from superfluid.state import Bounds, FileBounds, State


@dataclass
class Services:
    settings: Settings
    models: ModelRegistry
    fim_buckets: TokenBuckets
    state: State
    offload: Offload | None = None
    """Worker threads for preparing big requests off the event loop (http/offload.py)."""
    batches: BatchRunner | None = None
    """Runs /v1/batches in the background; started by the app's lifespan, which knows the app it dispatches to."""
    started_at: float = field(default_factory=time.time)

    @classmethod
    def from_settings(cls, settings: Settings) -> Services:
        return cls(settings=settings, models=ModelRegistry(settings),
                   fim_buckets=TokenBuckets(settings.completion_burst, settings.completion_rate),
                   state=State(settings.sessions_path(),
                               Bounds(settings.responses_max_age_s, settings.responses_max_bytes),
                               FileBounds(settings.files_max_bytes, settings.files_expiry_s),
                               url=settings.state_url),
                   offload=Offload(settings.prepare_workers))

    def next_id(self, prefix: str) -> str:
        """A reply id, ``chatcmpl-superfluid-`` and 24 random hex digits: unique across restarts and replicas,
        so logs, batch outputs and client caches never see one id for two replies."""
        return f"{prefix}-superfluid-{secrets.token_hex(12)}"

    async def start(self) -> None:
        await self.state.open()  # first: a sessions directory that cannot be used stops start-up at once
        await self.models.start()

    async def close(self) -> None:
        if self.batches is not None:
            await self.batches.close()
        await self.models.close()
        if self.offload is not None:
            self.offload.close()
        await self.state.close()
