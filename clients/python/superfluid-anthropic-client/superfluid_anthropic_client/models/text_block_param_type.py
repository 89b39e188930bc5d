from enum import StrEnum


class TextBlockParamType(StrEnum):
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
