from enum import StrEnum


class ResponseOutputTextType(StrEnum):
    OUTPUT_TEXT = "output_text"

    def __str__(self) -> str:
        return str(self.value)
