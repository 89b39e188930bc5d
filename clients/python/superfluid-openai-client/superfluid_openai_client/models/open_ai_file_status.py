from enum import StrEnum


class OpenAIFileStatus(StrEnum):
    PROCESSED = "processed"

    def __str__(self) -> str:
        return str(self.value)
