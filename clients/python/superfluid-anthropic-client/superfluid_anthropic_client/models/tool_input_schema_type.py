from enum import StrEnum


class ToolInputSchemaType(StrEnum):
    OBJECT = "object"

    def __str__(self) -> str:
        return str(self.value)
