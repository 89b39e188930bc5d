from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.embed_request import EmbedRequest
from ...models.embed_response import EmbedResponse
from ...models.error_response import ErrorResponse
from ...types import Response


def _get_kwargs(
    *,
    body: EmbedRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/embed",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EmbedResponse | ErrorResponse | None:
    if response.status_code == 200:
        response_200 = EmbedResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorResponse.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorResponse.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorResponse.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorResponse.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = ErrorResponse.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = ErrorResponse.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorResponse.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[EmbedResponse | ErrorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: EmbedRequest,
) -> Response[EmbedResponse | ErrorResponse]:
    """Normalized embeddings (embedding models only)

     One unit-length vector per input. An empty input loads the model and returns no vectors; truncate
    (default true) cuts an input over the window, false refuses it with a 400 naming its index;
    dimensions keeps the first N components and normalizes again. A model that does not embed is a 400.

    Args:
        body (EmbedRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EmbedResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: EmbedRequest,
) -> EmbedResponse | ErrorResponse | None:
    """Normalized embeddings (embedding models only)

     One unit-length vector per input. An empty input loads the model and returns no vectors; truncate
    (default true) cuts an input over the window, false refuses it with a 400 naming its index;
    dimensions keeps the first N components and normalizes again. A model that does not embed is a 400.

    Args:
        body (EmbedRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EmbedResponse | ErrorResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: EmbedRequest,
) -> Response[EmbedResponse | ErrorResponse]:
    """Normalized embeddings (embedding models only)

     One unit-length vector per input. An empty input loads the model and returns no vectors; truncate
    (default true) cuts an input over the window, false refuses it with a 400 naming its index;
    dimensions keeps the first N components and normalizes again. A model that does not embed is a 400.

    Args:
        body (EmbedRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EmbedResponse | ErrorResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: EmbedRequest,
) -> EmbedResponse | ErrorResponse | None:
    """Normalized embeddings (embedding models only)

     One unit-length vector per input. An empty input loads the model and returns no vectors; truncate
    (default true) cuts an input over the window, false refuses it with a 400 naming its index;
    dimensions keeps the first N components and normalizes again. A model that does not embed is a 400.

    Args:
        body (EmbedRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EmbedResponse | ErrorResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
