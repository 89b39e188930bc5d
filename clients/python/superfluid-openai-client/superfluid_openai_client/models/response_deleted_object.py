from enum import StrEnum


class ResponseDeletedObject(StrEnum):
    RESPONSE = "response"

    def __str__(self) -> str:
        return str(self.value)
