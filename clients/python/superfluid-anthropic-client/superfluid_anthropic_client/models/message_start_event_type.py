from enum import StrEnum


class MessageStartEventType(StrEnum):
    MESSAGE_START = "message_start"

    def __str__(self) -> str:
        return str(self.value)
