"""A client library for accessing superfluid — OpenAI-compatible surface"""

from .client import AuthenticatedClient, Client

__all__ = (
    "AuthenticatedClient",
    "Client",
)
