from enum import StrEnum


class ErrorResponseType(StrEnum):
    ERROR = "error"

    def __str__(self) -> str:
        return str(self.value)
