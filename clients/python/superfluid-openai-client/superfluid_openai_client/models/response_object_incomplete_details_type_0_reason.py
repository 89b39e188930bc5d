from enum import StrEnum


class ResponseObjectIncompleteDetailsType0Reason(StrEnum):
    MAX_OUTPUT_TOKENS = "max_output_tokens"

    def __str__(self) -> str:
        return str(self.value)
