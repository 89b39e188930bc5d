from enum import StrEnum


class ContentBlockDeltaEventDeltaType1Type(StrEnum):
    THINKING_DELTA = "thinking_delta"

    def __str__(self) -> str:
        return str(self.value)
