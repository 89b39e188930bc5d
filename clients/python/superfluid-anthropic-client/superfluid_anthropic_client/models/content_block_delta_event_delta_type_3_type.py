from enum import StrEnum


class ContentBlockDeltaEventDeltaType3Type(StrEnum):
    INPUT_JSON_DELTA = "input_json_delta"

    def __str__(self) -> str:
        return str(self.value)
