from enum import StrEnum


class OllamaIsRunningResponse200(StrEnum):
    SUPERFLUID_IS_RUNNING = "superfluid is running"

    def __str__(self) -> str:
        return str(self.value)
