from enum import StrEnum


class ResponseCreateRequestTruncation(StrEnum):
    AUTO = "auto"
    DISABLED = "disabled"

    def __str__(self) -> str:
        return str(self.value)
