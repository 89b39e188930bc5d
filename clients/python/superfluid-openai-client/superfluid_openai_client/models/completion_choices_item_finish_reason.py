from enum import StrEnum


class CompletionChoicesItemFinishReason(StrEnum):
    LENGTH = "length"
    STOP = "stop"

    def __str__(self) -> str:
        return str(self.value)
