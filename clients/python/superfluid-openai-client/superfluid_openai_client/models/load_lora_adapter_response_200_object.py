from enum import StrEnum


class LoadLoraAdapterResponse200Object(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
