from enum import StrEnum


class ShowResponseCapabilitiesItem(StrEnum):
    COMPLETION = "completion"
    EMBEDDING = "embedding"
    INSERT = "insert"
    THINKING = "thinking"
    TOOLS = "tools"
    TRANSCRIPTION = "transcription"
    TRANSLATION = "translation"
    VISION = "vision"

    def __str__(self) -> str:
        return str(self.value)
