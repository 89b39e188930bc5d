from enum import StrEnum


class TextBlockType(StrEnum):
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
