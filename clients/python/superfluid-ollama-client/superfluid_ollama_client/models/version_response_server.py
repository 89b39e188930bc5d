from enum import StrEnum


class VersionResponseServer(StrEnum):
    SUPERFLUID = "superfluid"

    def __str__(self) -> str:
        return str(self.value)
