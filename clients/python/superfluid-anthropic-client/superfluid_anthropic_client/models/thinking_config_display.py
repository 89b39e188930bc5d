from enum import StrEnum


class ThinkingConfigDisplay(StrEnum):
    OMITTED = "omitted"
    SUMMARIZED = "summarized"

    def __str__(self) -> str:
        return str(self.value)
