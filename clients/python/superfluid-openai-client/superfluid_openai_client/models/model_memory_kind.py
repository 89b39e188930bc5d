from enum import StrEnum


class ModelMemoryKind(StrEnum):
    ATTENTION = "attention"
    HYBRID = "hybrid"
    RECURRENT = "recurrent"
    SLIDING = "sliding"

    def __str__(self) -> str:
        return str(self.value)
