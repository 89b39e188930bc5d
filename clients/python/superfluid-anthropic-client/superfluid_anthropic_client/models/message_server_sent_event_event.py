from enum import StrEnum


class MessageServerSentEventEvent(StrEnum):
    CONTENT_BLOCK_DELTA = "content_block_delta"
    CONTENT_BLOCK_START = "content_block_start"
    CONTENT_BLOCK_STOP = "content_block_stop"
    ERROR = "error"
    MESSAGE_DELTA = "message_delta"
    MESSAGE_START = "message_start"
    MESSAGE_STOP = "message_stop"
    PING = "ping"

    def __str__(self) -> str:
        return str(self.value)
