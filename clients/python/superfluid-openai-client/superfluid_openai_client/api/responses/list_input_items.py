from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.list_input_items_order import ListInputItemsOrder
from ...models.response_item_list import ResponseItemList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    response_id: str,
    *,
    limit: int | Unset = 20,
    order: ListInputItemsOrder | Unset = ListInputItemsOrder.DESC,
    after: str | Unset = UNSET,
    include: list[str] | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order.value

    params["order"] = json_order

    params["after"] = after

    json_include: list[str] | Unset = UNSET
    if not isinstance(include, Unset):
        json_include = include

    params["include"] = json_include

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/responses/{response_id}/input_items".format(
            response_id=quote(str(response_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | ResponseItemList | None:
    if response.status_code == 200:
        response_200 = ResponseItemList.from_dict(response.json())

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

    if response.status_code == 429:
        response_429 = ErrorResponse.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorResponse | ResponseItemList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 20,
    order: ListInputItemsOrder | Unset = ListInputItemsOrder.DESC,
    after: str | Unset = UNSET,
    include: list[str] | Unset = UNSET,
) -> Response[ErrorResponse | ResponseItemList]:
    """The items a stored response was generated from (earlier turns of its chain included), by page

    Args:
        response_id (str):
        limit (int | Unset):  Default: 20.
        order (ListInputItemsOrder | Unset):  Default: ListInputItemsOrder.DESC.
        after (str | Unset):
        include (list[str] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ResponseItemList]
    """

    kwargs = _get_kwargs(
        response_id=response_id,
        limit=limit,
        order=order,
        after=after,
        include=include,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 20,
    order: ListInputItemsOrder | Unset = ListInputItemsOrder.DESC,
    after: str | Unset = UNSET,
    include: list[str] | Unset = UNSET,
) -> ErrorResponse | ResponseItemList | None:
    """The items a stored response was generated from (earlier turns of its chain included), by page

    Args:
        response_id (str):
        limit (int | Unset):  Default: 20.
        order (ListInputItemsOrder | Unset):  Default: ListInputItemsOrder.DESC.
        after (str | Unset):
        include (list[str] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ResponseItemList
    """

    return sync_detailed(
        response_id=response_id,
        client=client,
        limit=limit,
        order=order,
        after=after,
        include=include,
    ).parsed


async def asyncio_detailed(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 20,
    order: ListInputItemsOrder | Unset = ListInputItemsOrder.DESC,
    after: str | Unset = UNSET,
    include: list[str] | Unset = UNSET,
) -> Response[ErrorResponse | ResponseItemList]:
    """The items a stored response was generated from (earlier turns of its chain included), by page

    Args:
        response_id (str):
        limit (int | Unset):  Default: 20.
        order (ListInputItemsOrder | Unset):  Default: ListInputItemsOrder.DESC.
        after (str | Unset):
        include (list[str] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ResponseItemList]
    """

    kwargs = _get_kwargs(
        response_id=response_id,
        limit=limit,
        order=order,
        after=after,
        include=include,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 20,
    order: ListInputItemsOrder | Unset = ListInputItemsOrder.DESC,
    after: str | Unset = UNSET,
    include: list[str] | Unset = UNSET,
) -> ErrorResponse | ResponseItemList | None:
    """The items a stored response was generated from (earlier turns of its chain included), by page

    Args:
        response_id (str):
        limit (int | Unset):  Default: 20.
        order (ListInputItemsOrder | Unset):  Default: ListInputItemsOrder.DESC.
        after (str | Unset):
        include (list[str] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ResponseItemList
    """

    return (
        await asyncio_detailed(
            response_id=response_id,
            client=client,
            limit=limit,
            order=order,
            after=after,
            include=include,
        )
    ).parsed
