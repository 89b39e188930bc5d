from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.model_object import ModelObject

if TYPE_CHECKING:
    from ..models.capabilities import Capabilities
    from ..models.model_architecture import ModelArchitecture
    from ..models.model_meta import ModelMeta


T = TypeVar("T", bound="Model")


@_attrs_define
class Model:
    """
    Attributes:
        id (str):
        object_ (ModelObject):
        created (int):
        owned_by (str):
        loaded (bool):
        meta (ModelMeta):
        architecture (ModelArchitecture):
        runtime (str):
        capabilities (Capabilities):
    """

    id: str
    object_: ModelObject
    created: int
    owned_by: str
    loaded: bool
    meta: ModelMeta
    architecture: ModelArchitecture
    runtime: str
    capabilities: Capabilities
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_.value

        created = self.created

        owned_by = self.owned_by

        loaded = self.loaded

        meta = self.meta.to_dict()

        architecture = self.architecture.to_dict()

        runtime = self.runtime

        capabilities = self.capabilities.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "object": object_,
                "created": created,
                "owned_by": owned_by,
                "loaded": loaded,
                "meta": meta,
                "architecture": architecture,
                "runtime": runtime,
                "capabilities": capabilities,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.capabilities import Capabilities  # noqa: PLC0415
        from ..models.model_architecture import ModelArchitecture  # noqa: PLC0415
        from ..models.model_meta import ModelMeta  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        object_ = ModelObject(d.pop("object"))

        created = d.pop("created")

        owned_by = d.pop("owned_by")

        loaded = d.pop("loaded")

        meta = ModelMeta.from_dict(d.pop("meta"))

        architecture = ModelArchitecture.from_dict(d.pop("architecture"))

        runtime = d.pop("runtime")

        capabilities = Capabilities.from_dict(d.pop("capabilities"))

        model = cls(
            id=id,
            object_=object_,
            created=created,
            owned_by=owned_by,
            loaded=loaded,
            meta=meta,
            architecture=architecture,
            runtime=runtime,
            capabilities=capabilities,
        )

        model.additional_properties = d
        return model

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
