"""A model's sampling defaults: llama.cpp's, under what the GGUF declares, under the operator's flags; batch lines
see the model's own (the bundled model's real metadata, no weights loaded)."""

from __future__ import annotations

from superfluid.engine.decoding.sampling import LLAMA_DEFAULTS, OPERATOR_FIELDS, model_defaults
from superfluid.engine.models.llama_model import probe_metadata
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve
from superfluid.engine.models.profile import ModelProfile
from superfluid.settings import Settings


def _profile(settings: Settings) -> ModelProfile:
    source = resolve(DEFAULT_MODEL)
    path = source.locate()
    return ModelProfile.build(DEFAULT_MODEL, source.origin, path, probe_metadata(path), settings)


def test_without_flags_a_request_gets_the_models_defaults() -> None:
    profile = _profile(Settings())
    assert profile.sampling_defaults == profile.model_sampling_defaults
    assert profile.sampling_defaults == model_defaults(profile.meta.sampling_defaults)
    assert set(LLAMA_DEFAULTS) <= set(profile.sampling_defaults)


def test_the_operators_flags_win_for_requests_and_only_for_them() -> None:
    profile = _profile(Settings(sampling=(("temperature", 0.0), ("top_k", 1))))
    assert profile.sampling_defaults["temperature"] == 0.0
    assert profile.sampling_defaults["top_k"] == 1
    unset = model_defaults(profile.meta.sampling_defaults)
    assert profile.sampling_defaults["top_p"] == unset["top_p"]  # a flag not given keeps the model's value
    assert profile.model_sampling_defaults == unset


def test_the_flags_cover_every_default_a_request_may_leave_out() -> None:
    assert tuple(LLAMA_DEFAULTS) == OPERATOR_FIELDS
