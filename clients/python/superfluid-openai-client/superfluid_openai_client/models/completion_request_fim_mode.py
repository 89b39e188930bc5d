from enum import StrEnum


class CompletionRequestFimMode(StrEnum):
    PSM = "psm"
    SPM = "spm"

    def __str__(self) -> str:
        return str(self.value)
