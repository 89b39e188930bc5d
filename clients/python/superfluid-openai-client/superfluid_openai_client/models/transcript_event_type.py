from enum import StrEnum


class TranscriptEventType(StrEnum):
    TRANSCRIPT_TEXT_DELTA = "transcript.text.delta"
    TRANSCRIPT_TEXT_DONE = "transcript.text.done"

    def __str__(self) -> str:
        return str(self.value)
