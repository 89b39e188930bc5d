"""Access to the running server's services from inside a handler."""

from __future__ import annotations

import time
from typing import cast

from connexion import context

from superfluid.services import Services


def services() -> Services:
    """The Services the lifespan put into this request's ASGI state."""
    return cast(Services, context.scope["state"]["services"])


def now() -> int:
    return int(time.time())
