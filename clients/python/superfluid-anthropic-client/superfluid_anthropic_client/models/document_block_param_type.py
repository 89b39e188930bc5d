from enum import StrEnum


class DocumentBlockParamType(StrEnum):
    DOCUMENT = "document"

    def __str__(self) -> str:
        return str(self.value)
