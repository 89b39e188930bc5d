from enum import StrEnum


class UnloadLoraAdapterResponse200DataItemObject(StrEnum):
    LORA_ADAPTER = "lora_adapter"

    def __str__(self) -> str:
        return str(self.value)
