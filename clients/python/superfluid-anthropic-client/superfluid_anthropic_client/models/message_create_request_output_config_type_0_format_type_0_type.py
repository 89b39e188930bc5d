from enum import StrEnum


class MessageCreateRequestOutputConfigType0FormatType0Type(StrEnum):
    JSON_SCHEMA = "json_schema"

    def __str__(self) -> str:
        return str(self.value)
