from enum import StrEnum


class ImageBlockParamType(StrEnum):
    IMAGE = "image"

    def __str__(self) -> str:
        return str(self.value)
