from enum import StrEnum


class ContentBlockDeltaEventDeltaType2Type(StrEnum):
    SIGNATURE_DELTA = "signature_delta"

    def __str__(self) -> str:
        return str(self.value)
