from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.list_files_order import ListFilesOrder
from ...models.list_files_response import ListFilesResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    purpose: str | Unset = UNSET,
    limit: int | Unset = 10000,
    order: ListFilesOrder | Unset = ListFilesOrder.DESC,
    after: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["purpose"] = purpose

    params["limit"] = limit

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order.value

    params["order"] = json_order

    params["after"] = after

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/files",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | ListFilesResponse | None:
    if response.status_code == 200:
        response_200 = ListFilesResponse.from_dict(response.json())

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

    if response.status_code == 429:
        response_429 = ErrorResponse.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | ListFilesResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    purpose: str | Unset = UNSET,
    limit: int | Unset = 10000,
    order: ListFilesOrder | Unset = ListFilesOrder.DESC,
    after: str | Unset = UNSET,
) -> Response[ErrorResponse | ListFilesResponse]:
    """The caller's files, newest first unless order=asc

    Args:
        purpose (str | Unset):
        limit (int | Unset):  Default: 10000.
        order (ListFilesOrder | Unset):  Default: ListFilesOrder.DESC.
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ListFilesResponse]
    """

    kwargs = _get_kwargs(
        purpose=purpose,
        limit=limit,
        order=order,
        after=after,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    purpose: str | Unset = UNSET,
    limit: int | Unset = 10000,
    order: ListFilesOrder | Unset = ListFilesOrder.DESC,
    after: str | Unset = UNSET,
) -> ErrorResponse | ListFilesResponse | None:
    """The caller's files, newest first unless order=asc

    Args:
        purpose (str | Unset):
        limit (int | Unset):  Default: 10000.
        order (ListFilesOrder | Unset):  Default: ListFilesOrder.DESC.
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ListFilesResponse
    """

    return sync_detailed(
        client=client,
        purpose=purpose,
        limit=limit,
        order=order,
        after=after,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    purpose: str | Unset = UNSET,
    limit: int | Unset = 10000,
    order: ListFilesOrder | Unset = ListFilesOrder.DESC,
    after: str | Unset = UNSET,
) -> Response[ErrorResponse | ListFilesResponse]:
    """The caller's files, newest first unless order=asc

    Args:
        purpose (str | Unset):
        limit (int | Unset):  Default: 10000.
        order (ListFilesOrder | Unset):  Default: ListFilesOrder.DESC.
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ListFilesResponse]
    """

    kwargs = _get_kwargs(
        purpose=purpose,
        limit=limit,
        order=order,
        after=after,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    purpose: str | Unset = UNSET,
    limit: int | Unset = 10000,
    order: ListFilesOrder | Unset = ListFilesOrder.DESC,
    after: str | Unset = UNSET,
) -> ErrorResponse | ListFilesResponse | None:
    """The caller's files, newest first unless order=asc

    Args:
        purpose (str | Unset):
        limit (int | Unset):  Default: 10000.
        order (ListFilesOrder | Unset):  Default: ListFilesOrder.DESC.
        after (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ListFilesResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            purpose=purpose,
            limit=limit,
            order=order,
            after=after,
        )
    ).parsed
