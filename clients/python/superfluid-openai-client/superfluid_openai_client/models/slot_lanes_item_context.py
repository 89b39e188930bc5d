from enum import StrEnum


class SlotLanesItemContext(StrEnum):
    INVARIANT = "invariant"
    SHARED = "shared"

    def __str__(self) -> str:
        return str(self.value)
