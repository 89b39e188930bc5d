"""A client library for accessing superfluid — Anthropic Messages surface"""

from .client import AuthenticatedClient, Client

__all__ = (
    "AuthenticatedClient",
    "Client",
)
