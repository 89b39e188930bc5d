from enum import StrEnum


class VersionResponseCompatibility(StrEnum):
    OLLAMA_INFERENCE = "ollama-inference"

    def __str__(self) -> str:
        return str(self.value)
