from enum import StrEnum


class SlotLanesItemState(StrEnum):
    DECODE = "decode"
    IDLE = "idle"
    PREFILL = "prefill"

    def __str__(self) -> str:
        return str(self.value)
