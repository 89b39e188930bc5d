from enum import StrEnum


class CapabilitiesPoolingType1(StrEnum):
    CLS = "cls"
    LAST = "last"
    MEAN = "mean"
    NONE = "none"
    RANK = "rank"

    def __str__(self) -> str:
        return str(self.value)
