from enum import StrEnum


class ResponseItemListObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
