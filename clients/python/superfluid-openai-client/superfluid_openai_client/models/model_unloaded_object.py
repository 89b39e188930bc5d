from enum import StrEnum


class ModelUnloadedObject(StrEnum):
    MODEL = "model"

    def __str__(self) -> str:
        return str(self.value)
