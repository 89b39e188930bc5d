from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.chat_completion import ChatCompletion
from ...models.chat_completion_request import ChatCompletionRequest
from ...models.error_response import ErrorResponse
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: ChatCompletionRequest,
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
        "url": "/v1/chat/completions",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ChatCompletion | ErrorResponse | None:
    if response.status_code == 200:
        response_200 = ChatCompletion.from_dict(response.json())

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
) -> Response[ChatCompletion | ErrorResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: ChatCompletionRequest,
    x_superfluid_qos: str | Unset = UNSET,
    x_superfluid_batch_invariant: str | Unset = UNSET,
) -> Response[ChatCompletion | ErrorResponse]:
    """Chat completion, streaming (SSE) or not

    Args:
        x_superfluid_qos (str | Unset):
        x_superfluid_batch_invariant (str | Unset):
        body (ChatCompletionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChatCompletion | ErrorResponse]
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
    body: ChatCompletionRequest,
    x_superfluid_qos: str | Unset = UNSET,
    x_superfluid_batch_invariant: str | Unset = UNSET,
) -> ChatCompletion | ErrorResponse | None:
    """Chat completion, streaming (SSE) or not

    Args:
        x_superfluid_qos (str | Unset):
        x_superfluid_batch_invariant (str | Unset):
        body (ChatCompletionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChatCompletion | ErrorResponse
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
    body: ChatCompletionRequest,
    x_superfluid_qos: str | Unset = UNSET,
    x_superfluid_batch_invariant: str | Unset = UNSET,
) -> Response[ChatCompletion | ErrorResponse]:
    """Chat completion, streaming (SSE) or not

    Args:
        x_superfluid_qos (str | Unset):
        x_superfluid_batch_invariant (str | Unset):
        body (ChatCompletionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChatCompletion | ErrorResponse]
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
    body: ChatCompletionRequest,
    x_superfluid_qos: str | Unset = UNSET,
    x_superfluid_batch_invariant: str | Unset = UNSET,
) -> ChatCompletion | ErrorResponse | None:
    """Chat completion, streaming (SSE) or not

    Args:
        x_superfluid_qos (str | Unset):
        x_superfluid_batch_invariant (str | Unset):
        body (ChatCompletionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChatCompletion | ErrorResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            x_superfluid_qos=x_superfluid_qos,
            x_superfluid_batch_invariant=x_superfluid_batch_invariant,
        )
    ).parsed
