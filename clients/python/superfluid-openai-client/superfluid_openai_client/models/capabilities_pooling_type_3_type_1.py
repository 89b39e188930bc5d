from enum import StrEnum


class CapabilitiesPoolingType3Type1(StrEnum):
    CLS = "cls"
    LAST = "last"
    MEAN = "mean"
    NONE = "none"
    RANK = "rank"

    def __str__(self) -> str:
        return str(self.value)
