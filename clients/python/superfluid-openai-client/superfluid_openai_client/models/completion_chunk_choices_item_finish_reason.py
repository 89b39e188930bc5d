from enum import StrEnum


class CompletionChunkChoicesItemFinishReason(StrEnum):
    LENGTH = "length"
    STOP = "stop"

    def __str__(self) -> str:
        return str(self.value)
