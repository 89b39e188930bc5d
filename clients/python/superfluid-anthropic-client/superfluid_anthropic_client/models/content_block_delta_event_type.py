from enum import StrEnum


class ContentBlockDeltaEventType(StrEnum):
    CONTENT_BLOCK_DELTA = "content_block_delta"

    def __str__(self) -> str:
        return str(self.value)
