from enum import StrEnum


class EmbeddingListDataItemObject(StrEnum):
    EMBEDDING = "embedding"

    def __str__(self) -> str:
        return str(self.value)
