from enum import StrEnum


class TranscriptionTask(StrEnum):
    TRANSCRIBE = "transcribe"
    TRANSLATE = "translate"

    def __str__(self) -> str:
        return str(self.value)
