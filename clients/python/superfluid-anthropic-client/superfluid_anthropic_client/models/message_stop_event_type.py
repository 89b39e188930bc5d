from enum import StrEnum


class MessageStopEventType(StrEnum):
    MESSAGE_STOP = "message_stop"

    def __str__(self) -> str:
        return str(self.value)
