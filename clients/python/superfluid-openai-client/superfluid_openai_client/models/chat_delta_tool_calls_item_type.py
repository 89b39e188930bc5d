from enum import StrEnum


class ChatDeltaToolCallsItemType(StrEnum):
    FUNCTION = "function"

    def __str__(self) -> str:
        return str(self.value)
