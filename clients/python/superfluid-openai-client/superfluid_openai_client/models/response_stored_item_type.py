from enum import StrEnum


class ResponseStoredItemType(StrEnum):
    FUNCTION_CALL = "function_call"
    FUNCTION_CALL_OUTPUT = "function_call_output"
    MESSAGE = "message"
    REASONING = "reasoning"

    def __str__(self) -> str:
        return str(self.value)
