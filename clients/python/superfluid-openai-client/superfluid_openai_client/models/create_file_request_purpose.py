from enum import StrEnum


class CreateFileRequestPurpose(StrEnum):
    ASSISTANTS = "assistants"
    BATCH = "batch"
    FINE_TUNE = "fine-tune"
    USER_DATA = "user_data"

    def __str__(self) -> str:
        return str(self.value)
