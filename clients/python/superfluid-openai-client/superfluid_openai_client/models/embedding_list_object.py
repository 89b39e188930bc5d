from enum import StrEnum


class EmbeddingListObject(StrEnum):
    LIST = "list"

    def __str__(self) -> str:
        return str(self.value)
