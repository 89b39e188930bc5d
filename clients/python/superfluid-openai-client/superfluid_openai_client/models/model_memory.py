from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.model_memory_kind import ModelMemoryKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.model_memory_checkpoints import ModelMemoryCheckpoints


T = TypeVar("T", bound="ModelMemory")


@_attrs_define
class ModelMemory:
    """What a loaded model keeps per sequence (docs/models.md, "Recurrent and hybrid models").

    Attributes:
        kind (ModelMemoryKind):
        rollback (bool): A lane's cache can be cut back to any earlier token (false for recurrent state).
        checkpoints (ModelMemoryCheckpoints | Unset): Recurrent and hybrid models only (--ctx-checkpoints, --checkpoint-
            min-step).
    """

    kind: ModelMemoryKind
    rollback: bool
    checkpoints: ModelMemoryCheckpoints | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        rollback = self.rollback

        checkpoints: dict[str, Any] | Unset = UNSET
        if not isinstance(self.checkpoints, Unset):
            checkpoints = self.checkpoints.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "rollback": rollback,
            }
        )
        if checkpoints is not UNSET:
            field_dict["checkpoints"] = checkpoints

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.model_memory_checkpoints import ModelMemoryCheckpoints  # noqa: PLC0415

        d = dict(src_dict)
        kind = ModelMemoryKind(d.pop("kind"))

        rollback = d.pop("rollback")

        _checkpoints = d.pop("checkpoints", UNSET)
        checkpoints: ModelMemoryCheckpoints | Unset
        if isinstance(_checkpoints, Unset):
            checkpoints = UNSET
        else:
            checkpoints = ModelMemoryCheckpoints.from_dict(_checkpoints)

        model_memory = cls(
            kind=kind,
            rollback=rollback,
            checkpoints=checkpoints,
        )

        model_memory.additional_properties = d
        return model_memory

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
