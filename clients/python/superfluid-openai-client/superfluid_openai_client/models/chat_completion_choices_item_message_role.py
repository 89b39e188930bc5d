from enum import StrEnum


class ChatCompletionChoicesItemMessageRole(StrEnum):
    ASSISTANT = "assistant"

    def __str__(self) -> str:
        return str(self.value)
