from enum import StrEnum


class OpenAIFileObject(StrEnum):
    FILE = "file"

    def __str__(self) -> str:
        return str(self.value)
