from enum import StrEnum


class UnloadLoraAdapterResponse200Object(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
