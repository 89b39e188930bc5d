from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.slot_state import SlotState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.model_memory import ModelMemory
    from ..models.slot_kv_disk_type_0 import SlotKvDiskType0
    from ..models.slot_kv_pool import SlotKvPool
    from ..models.slot_lanes_item import SlotLanesItem
    from ..models.slot_params import SlotParams
    from ..models.slot_rates import SlotRates
    from ..models.slot_tick_plan import SlotTickPlan
    from ..models.slot_totals import SlotTotals


T = TypeVar("T", bound="Slot")


@_attrs_define
class Slot:
    """
    Attributes:
        id (int):
        n_ctx (int):
        is_processing (bool):
        lanes (list[SlotLanesItem]):
        kv_pool (SlotKvPool):
        tick_plan (SlotTickPlan):
        rates (SlotRates):
        id_task (int | Unset):
        model (str | Unset):
        speculative (bool | Unset): Prompt-lookup drafting is on (--spec-draft; always off for a model with recurrent
            state).
        memory (ModelMemory | Unset): What a loaded model keeps per sequence (docs/models.md, "Recurrent and hybrid
            models").
        params (SlotParams | Unset):
        waiting (int | Unset):
        state (SlotState | Unset): The model's lifecycle; while it loads, lanes are empty and load_waiting requests
            wait.
        load_waiting (int | Unset): Requests waiting for the model to load.
        totals (SlotTotals | Unset):
        kv_disk (None | SlotKvDiskType0 | Unset): The prefix cache's disk tier (--kv-disk-bytes), or null when it is
            off: its directory, files, bytes, budget_bytes, saves, dropped_saves, restores, restored_tokens and removed.
    """

    id: int
    n_ctx: int
    is_processing: bool
    lanes: list[SlotLanesItem]
    kv_pool: SlotKvPool
    tick_plan: SlotTickPlan
    rates: SlotRates
    id_task: int | Unset = UNSET
    model: str | Unset = UNSET
    speculative: bool | Unset = UNSET
    memory: ModelMemory | Unset = UNSET
    params: SlotParams | Unset = UNSET
    waiting: int | Unset = UNSET
    state: SlotState | Unset = UNSET
    load_waiting: int | Unset = UNSET
    totals: SlotTotals | Unset = UNSET
    kv_disk: None | SlotKvDiskType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.slot_kv_disk_type_0 import SlotKvDiskType0  # noqa: PLC0415

        id = self.id

        n_ctx = self.n_ctx

        is_processing = self.is_processing

        lanes = []
        for lanes_item_data in self.lanes:
            lanes_item = lanes_item_data.to_dict()
            lanes.append(lanes_item)

        kv_pool = self.kv_pool.to_dict()

        tick_plan = self.tick_plan.to_dict()

        rates = self.rates.to_dict()

        id_task = self.id_task

        model = self.model

        speculative = self.speculative

        memory: dict[str, Any] | Unset = UNSET
        if not isinstance(self.memory, Unset):
            memory = self.memory.to_dict()

        params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.params, Unset):
            params = self.params.to_dict()

        waiting = self.waiting

        state: str | Unset = UNSET
        if not isinstance(self.state, Unset):
            state = self.state.value

        load_waiting = self.load_waiting

        totals: dict[str, Any] | Unset = UNSET
        if not isinstance(self.totals, Unset):
            totals = self.totals.to_dict()

        kv_disk: dict[str, Any] | None | Unset
        if isinstance(self.kv_disk, Unset):
            kv_disk = UNSET
        elif isinstance(self.kv_disk, SlotKvDiskType0):
            kv_disk = self.kv_disk.to_dict()
        else:
            kv_disk = self.kv_disk

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "n_ctx": n_ctx,
                "is_processing": is_processing,
                "lanes": lanes,
                "kv_pool": kv_pool,
                "tick_plan": tick_plan,
                "rates": rates,
            }
        )
        if id_task is not UNSET:
            field_dict["id_task"] = id_task
        if model is not UNSET:
            field_dict["model"] = model
        if speculative is not UNSET:
            field_dict["speculative"] = speculative
        if memory is not UNSET:
            field_dict["memory"] = memory
        if params is not UNSET:
            field_dict["params"] = params
        if waiting is not UNSET:
            field_dict["waiting"] = waiting
        if state is not UNSET:
            field_dict["state"] = state
        if load_waiting is not UNSET:
            field_dict["load_waiting"] = load_waiting
        if totals is not UNSET:
            field_dict["totals"] = totals
        if kv_disk is not UNSET:
            field_dict["kv_disk"] = kv_disk

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.model_memory import ModelMemory  # noqa: PLC0415
        from ..models.slot_kv_disk_type_0 import SlotKvDiskType0  # noqa: PLC0415
        from ..models.slot_kv_pool import SlotKvPool  # noqa: PLC0415
        from ..models.slot_lanes_item import SlotLanesItem  # noqa: PLC0415
        from ..models.slot_params import SlotParams  # noqa: PLC0415
        from ..models.slot_rates import SlotRates  # noqa: PLC0415
        from ..models.slot_tick_plan import SlotTickPlan  # noqa: PLC0415
        from ..models.slot_totals import SlotTotals  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        n_ctx = d.pop("n_ctx")

        is_processing = d.pop("is_processing")

        lanes = []
        _lanes = d.pop("lanes")
        for lanes_item_data in _lanes:
            lanes_item = SlotLanesItem.from_dict(lanes_item_data)

            lanes.append(lanes_item)

        kv_pool = SlotKvPool.from_dict(d.pop("kv_pool"))

        tick_plan = SlotTickPlan.from_dict(d.pop("tick_plan"))

        rates = SlotRates.from_dict(d.pop("rates"))

        id_task = d.pop("id_task", UNSET)

        model = d.pop("model", UNSET)

        speculative = d.pop("speculative", UNSET)

        _memory = d.pop("memory", UNSET)
        memory: ModelMemory | Unset
        if isinstance(_memory, Unset):
            memory = UNSET
        else:
            memory = ModelMemory.from_dict(_memory)

        _params = d.pop("params", UNSET)
        params: SlotParams | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = SlotParams.from_dict(_params)

        waiting = d.pop("waiting", UNSET)

        _state = d.pop("state", UNSET)
        state: SlotState | Unset
        if isinstance(_state, Unset):
            state = UNSET
        else:
            state = SlotState(_state)

        load_waiting = d.pop("load_waiting", UNSET)

        _totals = d.pop("totals", UNSET)
        totals: SlotTotals | Unset
        if isinstance(_totals, Unset):
            totals = UNSET
        else:
            totals = SlotTotals.from_dict(_totals)

        def _parse_kv_disk(data: object) -> None | SlotKvDiskType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                kv_disk_type_0 = SlotKvDiskType0.from_dict(data)

                return kv_disk_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SlotKvDiskType0 | Unset, data)

        kv_disk = _parse_kv_disk(d.pop("kv_disk", UNSET))

        slot = cls(
            id=id,
            n_ctx=n_ctx,
            is_processing=is_processing,
            lanes=lanes,
            kv_pool=kv_pool,
            tick_plan=tick_plan,
            rates=rates,
            id_task=id_task,
            model=model,
            speculative=speculative,
            memory=memory,
            params=params,
            waiting=waiting,
            state=state,
            load_waiting=load_waiting,
            totals=totals,
            kv_disk=kv_disk,
        )

        slot.additional_properties = d
        return slot

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
