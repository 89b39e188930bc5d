"""Vector arithmetic of the embedding routes."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from superfluid.engine.embedding import vectors
from superfluid.errors import InvalidRequest


def test_truncate_normalize_and_base64() -> None:
    v = np.array([3.0, 4.0, 12.0], dtype=np.float32)
    assert vectors.truncate(v, None) is v
    np.testing.assert_array_equal(vectors.truncate(v, 2), [3.0, 4.0])
    np.testing.assert_allclose(vectors.normalize(vectors.truncate(v, 2)), [0.6, 0.8])
    np.testing.assert_array_equal(vectors.normalize(np.zeros(3, dtype=np.float32)), np.zeros(3))
    decoded = np.frombuffer(base64.b64decode(vectors.base64_le_f32(v)), dtype="<f4")
    np.testing.assert_array_equal(decoded, v)
    for bad in (0, 4):
        with pytest.raises(InvalidRequest):
            vectors.truncate(v, bad)


def test_cosine_ranking_is_descending_and_stable() -> None:
    query = np.array([1.0, 0.0], dtype=np.float32)
    docs = [np.array(d, dtype=np.float32) for d in ([0.0, 1.0], [2.0, 0.1], [-1.0, 0.0], [0.0, 3.0])]
    ranking = vectors.cosine_ranking(query, docs)
    assert [i for i, _ in ranking] == [1, 0, 3, 2]
    assert ranking[0][1] == pytest.approx(0.99875, abs=1e-4) and ranking[-1][1] == pytest.approx(-1.0)
