from enum import StrEnum


class PropsChatTemplateSource(StrEnum):
    BUILTIN = "builtin"
    FILE = "file"
    GGUF = "gguf"

    def __str__(self) -> str:
        return str(self.value)
