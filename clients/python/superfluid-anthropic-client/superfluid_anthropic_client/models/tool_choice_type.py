from enum import StrEnum


class ToolChoiceType(StrEnum):
    ANY = "any"
    AUTO = "auto"
    NONE = "none"
    TOOL = "tool"

    def __str__(self) -> str:
        return str(self.value)
