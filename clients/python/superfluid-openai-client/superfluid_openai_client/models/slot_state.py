from enum import StrEnum


class SlotState(StrEnum):
    LOADED = "loaded"
    LOADING = "loading"
    UNLOADING = "unloading"

    def __str__(self) -> str:
        return str(self.value)
