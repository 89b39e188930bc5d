from enum import StrEnum


class MessageRole(StrEnum):
    ASSISTANT = "assistant"

    def __str__(self) -> str:
        return str(self.value)
