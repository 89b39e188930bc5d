from enum import StrEnum


class ListLoraAdaptersResponse200Object(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
