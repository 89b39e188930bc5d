from enum import StrEnum


class ErrorResponseErrorType(StrEnum):
    API_ERROR = "api_error"
    AUTHENTICATION_ERROR = "authentication_error"
    INVALID_REQUEST_ERROR = "invalid_request_error"
    NOT_FOUND_ERROR = "not_found_error"
    OVERLOADED_ERROR = "overloaded_error"
    PERMISSION_ERROR = "permission_error"
    RATE_LIMIT_ERROR = "rate_limit_error"
    REQUEST_TOO_LARGE = "request_too_large"

    def __str__(self) -> str:
        return str(self.value)
