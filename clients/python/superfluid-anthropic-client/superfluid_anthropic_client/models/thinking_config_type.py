from enum import StrEnum


class ThinkingConfigType(StrEnum):
    ADAPTIVE = "adaptive"
    DISABLED = "disabled"
    ENABLED = "enabled"

    def __str__(self) -> str:
        return str(self.value)
