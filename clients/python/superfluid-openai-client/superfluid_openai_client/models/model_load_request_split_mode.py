from enum import StrEnum


class ModelLoadRequestSplitMode(StrEnum):
    LAYER = "layer"
    NONE = "none"
    ROW = "row"

    def __str__(self) -> str:
        return str(self.value)
