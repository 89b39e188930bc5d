from enum import StrEnum


class SuperfluidHandlersOperationsHealthResponse200Status(StrEnum):
    OK = "ok"

    def __str__(self) -> str:
        return str(self.value)
