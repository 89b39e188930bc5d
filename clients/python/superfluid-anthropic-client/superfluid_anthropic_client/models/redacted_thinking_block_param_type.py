from enum import StrEnum


class RedactedThinkingBlockParamType(StrEnum):
    REDACTED_THINKING = "redacted_thinking"

    def __str__(self) -> str:
        return str(self.value)
