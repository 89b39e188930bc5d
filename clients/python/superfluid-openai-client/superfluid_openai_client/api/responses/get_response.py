from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.response_object import ResponseObject
from ...types import UNSET, Response, Unset


def _get_kwargs(
    response_id: str,
    *,
    stream: bool | Unset = UNSET,
    include: list[str] | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["stream"] = stream

    json_include: list[str] | Unset = UNSET
    if not isinstance(include, Unset):
        json_include = include

    params["include"] = json_include

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/responses/{response_id}".format(
            response_id=quote(str(response_id), safe=""),
        ),
        "params": params,
    }

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

    if response.status_code == 429:
        response_429 = ErrorResponse.from_dict(response.json())

        return response_429

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
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
    stream: bool | Unset = UNSET,
    include: list[str] | Unset = UNSET,
) -> Response[ErrorResponse | ResponseObject]:
    """A stored response

    Args:
        response_id (str):
        stream (bool | Unset):
        include (list[str] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ResponseObject]
    """

    kwargs = _get_kwargs(
        response_id=response_id,
        stream=stream,
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
    stream: bool | Unset = UNSET,
    include: list[str] | Unset = UNSET,
) -> ErrorResponse | ResponseObject | None:
    """A stored response

    Args:
        response_id (str):
        stream (bool | Unset):
        include (list[str] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ResponseObject
    """

    return sync_detailed(
        response_id=response_id,
        client=client,
        stream=stream,
        include=include,
    ).parsed


async def asyncio_detailed(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
    stream: bool | Unset = UNSET,
    include: list[str] | Unset = UNSET,
) -> Response[ErrorResponse | ResponseObject]:
    """A stored response

    Args:
        response_id (str):
        stream (bool | Unset):
        include (list[str] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ResponseObject]
    """

    kwargs = _get_kwargs(
        response_id=response_id,
        stream=stream,
        include=include,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    response_id: str,
    *,
    client: AuthenticatedClient | Client,
    stream: bool | Unset = UNSET,
    include: list[str] | Unset = UNSET,
) -> ErrorResponse | ResponseObject | None:
    """A stored response

    Args:
        response_id (str):
        stream (bool | Unset):
        include (list[str] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ResponseObject
    """

    return (
        await asyncio_detailed(
            response_id=response_id,
            client=client,
            stream=stream,
            include=include,
        )
    ).parsed
