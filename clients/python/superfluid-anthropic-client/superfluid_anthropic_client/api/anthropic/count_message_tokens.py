from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.count_tokens_request import CountTokensRequest
from ...models.error_response import ErrorResponse
from ...models.message_tokens_count import MessageTokensCount
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CountTokensRequest,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_api_key, Unset):
        headers["x-api-key"] = x_api_key

    if not isinstance(anthropic_version, Unset):
        headers["anthropic-version"] = anthropic_version

    if not isinstance(anthropic_beta, Unset):
        headers["anthropic-beta"] = anthropic_beta

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/messages/count_tokens",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | MessageTokensCount | None:
    if response.status_code == 200:
        response_200 = MessageTokensCount.from_dict(response.json())

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

    if response.status_code == 415:
        response_415 = ErrorResponse.from_dict(response.json())

        return response_415

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
) -> Response[ErrorResponse | MessageTokensCount]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CountTokensRequest,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> Response[ErrorResponse | MessageTokensCount]:
    """The prompt's token count (system, messages and tools as the chat template renders them); nothing is
    generated

    Args:
        x_api_key (str | Unset):
        anthropic_version (str | Unset):
        anthropic_beta (str | Unset):
        body (CountTokensRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | MessageTokensCount]
    """

    kwargs = _get_kwargs(
        body=body,
        x_api_key=x_api_key,
        anthropic_version=anthropic_version,
        anthropic_beta=anthropic_beta,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: CountTokensRequest,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> ErrorResponse | MessageTokensCount | None:
    """The prompt's token count (system, messages and tools as the chat template renders them); nothing is
    generated

    Args:
        x_api_key (str | Unset):
        anthropic_version (str | Unset):
        anthropic_beta (str | Unset):
        body (CountTokensRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | MessageTokensCount
    """

    return sync_detailed(
        client=client,
        body=body,
        x_api_key=x_api_key,
        anthropic_version=anthropic_version,
        anthropic_beta=anthropic_beta,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CountTokensRequest,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> Response[ErrorResponse | MessageTokensCount]:
    """The prompt's token count (system, messages and tools as the chat template renders them); nothing is
    generated

    Args:
        x_api_key (str | Unset):
        anthropic_version (str | Unset):
        anthropic_beta (str | Unset):
        body (CountTokensRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | MessageTokensCount]
    """

    kwargs = _get_kwargs(
        body=body,
        x_api_key=x_api_key,
        anthropic_version=anthropic_version,
        anthropic_beta=anthropic_beta,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: CountTokensRequest,
    x_api_key: str | Unset = UNSET,
    anthropic_version: str | Unset = UNSET,
    anthropic_beta: str | Unset = UNSET,
) -> ErrorResponse | MessageTokensCount | None:
    """The prompt's token count (system, messages and tools as the chat template renders them); nothing is
    generated

    Args:
        x_api_key (str | Unset):
        anthropic_version (str | Unset):
        anthropic_beta (str | Unset):
        body (CountTokensRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | MessageTokensCount
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_api_key=x_api_key,
            anthropic_version=anthropic_version,
            anthropic_beta=anthropic_beta,
        )
    ).parsed
