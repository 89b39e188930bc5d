from enum import StrEnum


class ResponseStoredItemRole(StrEnum):
    ASSISTANT = "assistant"
    DEVELOPER = "developer"
    SYSTEM = "system"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
