from enum import StrEnum


class ListLoraAdaptersResponse200DataItemObject(StrEnum):
    LORA_ADAPTER = "lora_adapter"

    def __str__(self) -> str:
        return str(self.value)
