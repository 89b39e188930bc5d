from enum import StrEnum


class OpenAIFilePurpose(StrEnum):
    ASSISTANTS = "assistants"
    BATCH = "batch"
    BATCH_OUTPUT = "batch_output"
    FINE_TUNE = "fine-tune"
    USER_DATA = "user_data"

    def __str__(self) -> str:
        return str(self.value)
