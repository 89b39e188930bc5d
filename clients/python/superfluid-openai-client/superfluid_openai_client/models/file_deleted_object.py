from enum import StrEnum


class FileDeletedObject(StrEnum):
    FILE = "file"

    def __str__(self) -> str:
        return str(self.value)
