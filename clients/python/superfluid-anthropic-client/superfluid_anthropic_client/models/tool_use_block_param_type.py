from enum import StrEnum


class ToolUseBlockParamType(StrEnum):
    TOOL_USE = "tool_use"

    def __str__(self) -> str:
        return str(self.value)
