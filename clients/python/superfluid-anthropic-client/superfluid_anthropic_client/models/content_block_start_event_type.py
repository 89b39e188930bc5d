from enum import StrEnum


class ContentBlockStartEventType(StrEnum):
    CONTENT_BLOCK_START = "content_block_start"

    def __str__(self) -> str:
        return str(self.value)
