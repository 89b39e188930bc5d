from enum import StrEnum


class ToolType(StrEnum):
    CUSTOM = "custom"

    def __str__(self) -> str:
        return str(self.value)
