from enum import StrEnum


class ThinkingBlockParamType(StrEnum):
    THINKING = "thinking"

    def __str__(self) -> str:
        return str(self.value)
