from enum import StrEnum


class TotalsDoneReason(StrEnum):
    LENGTH = "length"
    LOAD = "load"
    STOP = "stop"

    def __str__(self) -> str:
        return str(self.value)
