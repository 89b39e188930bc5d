from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.response_create_request import ResponseCreateRequest
from ...models.response_object import ResponseObject
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: ResponseCreateRequest,
    x_superfluid_qos: str | Unset = UNSET,
    x_superfluid_batch_invariant: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(x_superfluid_qos, Unset):
        headers["x-superfluid-qos"] = x_superfluid_qos

    if not isinstance(x_superfluid_batch_invariant, Unset):
        headers["x-superfluid-batch-invariant"] = x_superfluid_batch_invariant

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/responses",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | ResponseObject | None:
    if response.status_code == 200:
        response_200 = ResponseObject.from_dict(response.json())

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
) -> Response[ErrorResponse | ResponseObject]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ResponseCreateRequest,
    x_superfluid_qos: str | Unset = UNSET,
    x_superfluid_batch_invariant: str | Unset = UNSET,
) -> Response[ErrorResponse | ResponseObject]:
    """Create a response, streamed as typed events or not; stored unless store is false

    Args:
        x_superfluid_qos (str | Unset):
        x_superfluid_batch_invariant (str | Unset):
        body (ResponseCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ResponseObject]
    """

    kwargs = _get_kwargs(
        body=body,
        x_superfluid_qos=x_superfluid_qos,
        x_superfluid_batch_invariant=x_superfluid_batch_invariant,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: ResponseCreateRequest,
    x_superfluid_qos: str | Unset = UNSET,
    x_superfluid_batch_invariant: str | Unset = UNSET,
) -> ErrorResponse | ResponseObject | None:
    """Create a response, streamed as typed events or not; stored unless store is false

    Args:
        x_superfluid_qos (str | Unset):
        x_superfluid_batch_invariant (str | Unset):
        body (ResponseCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ResponseObject
    """

    return sync_detailed(
        client=client,
        body=body,
        x_superfluid_qos=x_superfluid_qos,
        x_superfluid_batch_invariant=x_superfluid_batch_invariant,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ResponseCreateRequest,
    x_superfluid_qos: str | Unset = UNSET,
    x_superfluid_batch_invariant: str | Unset = UNSET,
) -> Response[ErrorResponse | ResponseObject]:
    """Create a response, streamed as typed events or not; stored unless store is false

    Args:
        x_superfluid_qos (str | Unset):
        x_superfluid_batch_invariant (str | Unset):
        body (ResponseCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ResponseObject]
    """

    kwargs = _get_kwargs(
        body=body,
        x_superfluid_qos=x_superfluid_qos,
        x_superfluid_batch_invariant=x_superfluid_batch_invariant,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: ResponseCreateRequest,
    x_superfluid_qos: str | Unset = UNSET,
    x_superfluid_batch_invariant: str | Unset = UNSET,
) -> ErrorResponse | ResponseObject | None:
    """Create a response, streamed as typed events or not; stored unless store is false

    Args:
        x_superfluid_qos (str | Unset):
        x_superfluid_batch_invariant (str | Unset):
        body (ResponseCreateRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ResponseObject
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_superfluid_qos=x_superfluid_qos,
            x_superfluid_batch_invariant=x_superfluid_batch_invariant,
        )
    ).parsed
