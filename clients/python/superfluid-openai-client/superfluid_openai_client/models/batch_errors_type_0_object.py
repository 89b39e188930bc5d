from enum import StrEnum


class BatchErrorsType0Object(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
