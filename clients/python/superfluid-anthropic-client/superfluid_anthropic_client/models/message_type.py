from enum import StrEnum


class MessageType(StrEnum):
    MESSAGE = "message"

    def __str__(self) -> str:
        return str(self.value)
