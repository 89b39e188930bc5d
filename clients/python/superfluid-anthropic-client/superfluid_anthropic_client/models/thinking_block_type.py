from enum import StrEnum


class ThinkingBlockType(StrEnum):
    THINKING = "thinking"

    def __str__(self) -> str:
        return str(self.value)
