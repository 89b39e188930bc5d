"""What the embedding routes do with pooled vectors: truncate, normalize, encode, rank by cosine."""

from __future__ import annotations

import base64
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from superfluid.errors import InvalidRequest

Vector = npt.NDArray[np.float32]


def truncate(vector: Vector, dimensions: int | None, *, param: str = "dimensions") -> Vector:
    """The first ``dimensions`` components (Matryoshka-style); None keeps all."""
    if dimensions is None:
        return vector
    if dimensions < 1 or dimensions > vector.shape[0]:
        raise InvalidRequest(f"dimensions must be between 1 and {vector.shape[0]} for this model; got {dimensions}",
                             param=param)
    return vector[:dimensions]


def normalize(vector: Vector) -> Vector:
    """Unit length (L2); a zero vector stays zero."""
    norm = float(np.linalg.norm(vector))
    return vector if norm == 0.0 else (vector / norm).astype(np.float32)


def base64_le_f32(vector: Vector) -> str:
    """The vector as base64 of little-endian float32, OpenAI's encoding_format=base64."""
    return base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")


def cosine_ranking(query: Vector, documents: Sequence[Vector]) -> list[tuple[int, float]]:
    """(document index, cosine similarity to the query), most similar first; ties keep document order."""
    q = normalize(query)
    scores = [(i, float(np.dot(q, normalize(d)))) for i, d in enumerate(documents)]
    return sorted(scores, key=lambda pair: (-pair[1], pair[0]))
