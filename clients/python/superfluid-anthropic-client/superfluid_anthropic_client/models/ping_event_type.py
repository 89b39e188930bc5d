from enum import StrEnum


class PingEventType(StrEnum):
    PING = "ping"

    def __str__(self) -> str:
        return str(self.value)
