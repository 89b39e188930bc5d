from enum import StrEnum


class ResponseSummaryTextType(StrEnum):
    SUMMARY_TEXT = "summary_text"

    def __str__(self) -> str:
        return str(self.value)
