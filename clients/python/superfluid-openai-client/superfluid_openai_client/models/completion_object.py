from enum import StrEnum


class CompletionObject(StrEnum):
    TEXT_COMPLETION = "text_completion"

    def __str__(self) -> str:
        return str(self.value)
