from enum import StrEnum


class EmbeddingRequestEncodingFormat(StrEnum):
    BASE64 = "base64"
    FLOAT = "float"

    def __str__(self) -> str:
        return str(self.value)
