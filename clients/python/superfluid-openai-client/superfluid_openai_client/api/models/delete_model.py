from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_response import ErrorResponse
from ...models.model_unloaded import ModelUnloaded
from ...types import Response


def _get_kwargs(
    model: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/models/{model}".format(
            model=quote(str(model), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorResponse | ModelUnloaded | None:
    if response.status_code == 200:
        response_200 = ModelUnloaded.from_dict(response.json())

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
) -> Response[ErrorResponse | ModelUnloaded]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    model: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorResponse | ModelUnloaded]:
    """Unload a model (admin); it stays known and loads again on demand

     Waits for the model's running requests to finish, then unloads it; requests that arrive meanwhile
    wait and load it again. The answer has OpenAI's deleted-model shape. A model that is not loaded
    answers the same.

    Args:
        model (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ModelUnloaded]
    """

    kwargs = _get_kwargs(
        model=model,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    model: str,
    *,
    client: AuthenticatedClient | Client,
) -> ErrorResponse | ModelUnloaded | None:
    """Unload a model (admin); it stays known and loads again on demand

     Waits for the model's running requests to finish, then unloads it; requests that arrive meanwhile
    wait and load it again. The answer has OpenAI's deleted-model shape. A model that is not loaded
    answers the same.

    Args:
        model (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ModelUnloaded
    """

    return sync_detailed(
        model=model,
        client=client,
    ).parsed


async def asyncio_detailed(
    model: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorResponse | ModelUnloaded]:
    """Unload a model (admin); it stays known and loads again on demand

     Waits for the model's running requests to finish, then unloads it; requests that arrive meanwhile
    wait and load it again. The answer has OpenAI's deleted-model shape. A model that is not loaded
    answers the same.

    Args:
        model (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorResponse | ModelUnloaded]
    """

    kwargs = _get_kwargs(
        model=model,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    model: str,
    *,
    client: AuthenticatedClient | Client,
) -> ErrorResponse | ModelUnloaded | None:
    """Unload a model (admin); it stays known and loads again on demand

     Waits for the model's running requests to finish, then unloads it; requests that arrive meanwhile
    wait and load it again. The answer has OpenAI's deleted-model shape. A model that is not loaded
    answers the same.

    Args:
        model (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorResponse | ModelUnloaded
    """

    return (
        await asyncio_detailed(
            model=model,
            client=client,
        )
    ).parsed
