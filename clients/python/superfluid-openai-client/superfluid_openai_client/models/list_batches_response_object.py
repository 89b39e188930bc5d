from enum import StrEnum


class ListBatchesResponseObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
