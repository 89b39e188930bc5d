from enum import StrEnum


class ListFilesResponseObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
