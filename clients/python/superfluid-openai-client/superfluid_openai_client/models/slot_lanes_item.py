from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.slot_lanes_item_context import SlotLanesItemContext
from ..models.slot_lanes_item_state import SlotLanesItemState
from ..types import UNSET, Unset

T = TypeVar("T", bound="SlotLanesItem")


@_attrs_define
class SlotLanesItem:
    """
    Attributes:
        seq (int | Unset):
        context (SlotLanesItemContext | Unset): invariant: the batch-invariant lane's own context
        state (SlotLanesItemState | Unset):
        cached_tokens (int | Unset):
        checkpoints (list[int] | Unset): Token counts at which the lane holds a checkpoint of recurrent state (recurrent
            and hybrid models; empty for others).
        qos (None | str | Unset):
        generated (int | Unset):
        batch_invariant (bool | Unset):
    """

    seq: int | Unset = UNSET
    context: SlotLanesItemContext | Unset = UNSET
    state: SlotLanesItemState | Unset = UNSET
    cached_tokens: int | Unset = UNSET
    checkpoints: list[int] | Unset = UNSET
    qos: None | str | Unset = UNSET
    generated: int | Unset = UNSET
    batch_invariant: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        seq = self.seq

        context: str | Unset = UNSET
        if not isinstance(self.context, Unset):
            context = self.context.value

        state: str | Unset = UNSET
        if not isinstance(self.state, Unset):
            state = self.state.value

        cached_tokens = self.cached_tokens

        checkpoints: list[int] | Unset = UNSET
        if not isinstance(self.checkpoints, Unset):
            checkpoints = self.checkpoints

        qos: None | str | Unset
        if isinstance(self.qos, Unset):
            qos = UNSET
        else:
            qos = self.qos

        generated = self.generated

        batch_invariant = self.batch_invariant

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if seq is not UNSET:
            field_dict["seq"] = seq
        if context is not UNSET:
            field_dict["context"] = context
        if state is not UNSET:
            field_dict["state"] = state
        if cached_tokens is not UNSET:
            field_dict["cached_tokens"] = cached_tokens
        if checkpoints is not UNSET:
            field_dict["checkpoints"] = checkpoints
        if qos is not UNSET:
            field_dict["qos"] = qos
        if generated is not UNSET:
            field_dict["generated"] = generated
        if batch_invariant is not UNSET:
            field_dict["batch_invariant"] = batch_invariant

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        seq = d.pop("seq", UNSET)

        _context = d.pop("context", UNSET)
        context: SlotLanesItemContext | Unset
        if isinstance(_context, Unset):
            context = UNSET
        else:
            context = SlotLanesItemContext(_context)

        _state = d.pop("state", UNSET)
        state: SlotLanesItemState | Unset
        if isinstance(_state, Unset):
            state = UNSET
        else:
            state = SlotLanesItemState(_state)

        cached_tokens = d.pop("cached_tokens", UNSET)

        checkpoints = cast(list[int], d.pop("checkpoints", UNSET))

        def _parse_qos(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        qos = _parse_qos(d.pop("qos", UNSET))

        generated = d.pop("generated", UNSET)

        batch_invariant = d.pop("batch_invariant", UNSET)

        slot_lanes_item = cls(
            seq=seq,
            context=context,
            state=state,
            cached_tokens=cached_tokens,
            checkpoints=checkpoints,
            qos=qos,
            generated=generated,
            batch_invariant=batch_invariant,
        )

        slot_lanes_item.additional_properties = d
        return slot_lanes_item

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
