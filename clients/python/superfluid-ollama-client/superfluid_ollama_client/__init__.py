"""A client library for accessing superfluid — Ollama-compatible surface"""

from .client import AuthenticatedClient, Client

__all__ = (
    "AuthenticatedClient",
    "Client",
)
