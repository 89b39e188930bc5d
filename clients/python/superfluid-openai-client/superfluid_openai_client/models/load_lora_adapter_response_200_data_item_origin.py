from enum import StrEnum


class LoadLoraAdapterResponse200DataItemOrigin(StrEnum):
    LORA_DIR = "lora-dir"
    STARTUP = "startup"

    def __str__(self) -> str:
        return str(self.value)
