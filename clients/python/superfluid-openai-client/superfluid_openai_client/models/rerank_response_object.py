from enum import StrEnum


class RerankResponseObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
