from enum import StrEnum


class ResponseFunctionCallType(StrEnum):
    FUNCTION_CALL = "function_call"

    def __str__(self) -> str:
        return str(self.value)
