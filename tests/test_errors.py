"""The typed error tree: status, OpenAI type and code of each class, and the OpenAI body."""

from __future__ import annotations

import pytest

from superfluid import errors
from superfluid.errors import (
    AdminRequired,
    AuthenticationFailed,
    ConstraintUnsatisfiable,
    ContextLengthExceeded,
    EngineFailure,
    FimUnsupported,
    InvalidRequest,
    ModelNotFound,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    RouteRetired,
    SuperfluidError,
    UnsupportedInput,
    UnsupportedModel,
    UnsupportedParameter,
)


@pytest.mark.parametrize(
    ("cls", "status", "error_type", "code"),
    [
        (SuperfluidError, 500, "server_error", None),
        (InvalidRequest, 400, "invalid_request_error", None),
        (ContextLengthExceeded, 400, "invalid_request_error", "context_length_exceeded"),
        (UnsupportedParameter, 400, "invalid_request_error", "unsupported_parameter"),
        (UnsupportedInput, 400, "invalid_request_error", "unsupported_input"),
        (UnsupportedModel, 400, "invalid_request_error", "unsupported_model"),
        (FimUnsupported, 400, "invalid_request_error", "fim_unsupported"),
        (AuthenticationFailed, 401, "authentication_error", "invalid_api_key"),
        (AdminRequired, 403, "permission_error", "admin_required"),
        (NotFound, 404, "not_found_error", None),
        (PayloadTooLarge, 413, "invalid_request_error", "payload_too_large"),
        (RouteRetired, 501, "invalid_request_error", "route_retired"),
        (EngineFailure, 500, "server_error", None),
    ],
)
def test_class_status_type_and_code(cls: type[SuperfluidError], status: int, error_type: str,
                                    code: str | None) -> None:
    error = cls("something went wrong")
    assert error.status == status
    assert error.error_type == error_type
    assert error.code == code
    assert error.message == "something went wrong"
    assert str(error) == "something went wrong"
    assert error.param is None
    assert error.headers == {}


def test_the_tree_matches_the_docstring() -> None:
    for cls in (ContextLengthExceeded, UnsupportedParameter, UnsupportedInput, UnsupportedModel, FimUnsupported,
                ConstraintUnsatisfiable):
        assert issubclass(cls, InvalidRequest)
    assert issubclass(ModelNotFound, NotFound)
    for name in ("InvalidRequest", "AuthenticationFailed", "AdminRequired", "NotFound", "PayloadTooLarge",
                 "RateLimited", "RouteRetired", "EngineFailure"):
        assert issubclass(getattr(errors, name), SuperfluidError)
        assert name in (errors.__doc__ or "")


def test_explicit_code_and_param_override_the_defaults() -> None:
    error = UnsupportedParameter("no", param="logprobs", code="custom")
    assert error.code == "custom"
    assert error.param == "logprobs"


def test_constraint_unsatisfiable_prefixes_its_message() -> None:
    error = ConstraintUnsatisfiable("schema allows no string", param="response_format")
    assert error.status == 400
    assert error.message == "constraint unsatisfiable: schema allows no string"
    assert error.param == "response_format"


def test_model_not_found_names_the_model_and_the_param() -> None:
    error = ModelNotFound("gpt-9")
    assert error.status == 404
    assert error.param == "model"
    assert "'gpt-9'" in error.message
    assert "/v1/models" in error.message


@pytest.mark.parametrize(("retry_after_s", "header"), [(0.0, "1"), (0.2, "1"), (1.0, "1"), (2.5, "3"), (3.0, "3")])
def test_rate_limited_sets_a_whole_second_retry_after(retry_after_s: float, header: str) -> None:
    error = RateLimited("slow down", retry_after_s=retry_after_s)
    assert error.status == 429
    assert error.error_type == "rate_limit_error"
    assert error.code == "rate_limit_exceeded"
    assert error.headers == {"retry-after": header}


def test_codes_are_classes_not_raise_site_choices() -> None:
    """Every code a raise site used to pick is a subclass's; the subclasses keep their parent's status."""
    from superfluid import errors

    cases = {errors.ConcurrencyLimited: ("concurrency_limit_exceeded", 429),
             errors.CompletionRateLimited: ("completion_rate_limited", 429),
             errors.BatchQueueFull: ("batch_queue_full", 429),
             errors.FileInUse: ("file_in_use", 409), errors.BatchNotCancellable: ("batch_not_cancellable", 409),
             errors.ReplicaFailed: ("replica_failed", 500)}
    for cls, (code, status) in cases.items():
        error = cls("x", retry_after_s=1) if issubclass(cls, RateLimited) else cls("x")
        assert (error.code, error.status) == (code, status), cls


def test_headers_are_copied() -> None:
    given = {"x-a": "1"}
    error = SuperfluidError("m", headers=given)
    given["x-b"] = "2"
    assert error.headers == {"x-a": "1"}


def test_openai_body_shape() -> None:
    body = ContextLengthExceeded("prompt is 9000 tokens; the context holds 8192", param="messages").openai_body()
    assert body == {
        "error": {
            "message": "prompt is 9000 tokens; the context holds 8192",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }


def test_openai_body_keeps_null_param_and_code() -> None:
    assert EngineFailure("boom").openai_body() == {
        "error": {"message": "boom", "type": "server_error", "param": None, "code": None}
    }


def test_adapter_refused_is_a_400_naming_the_path_field() -> None:
    error = errors.AdapterRefused("'x.gguf' leads outside the adapters directory")
    assert isinstance(error, InvalidRequest)
    assert (error.status, error.code, error.param) == (400, "invalid_lora_adapter", "path")
    assert "AdapterRefused" in (errors.__doc__ or "")
