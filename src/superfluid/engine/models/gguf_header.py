"""The header of a GGUF file (metadata and tensor shapes), read without loading any tensor data.

llama.cpp refuses a bad LoRA adapter with a line in its own log and a NULL handle; reading the header first lets
the server say what is wrong with the file in the response. Only what the checks need is kept: scalar metadata
values (arrays are skipped) and each tensor's name and shape (``ne`` order, innermost dimension first).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import gguf
from gguf.constants import GGML_QUANT_SIZES

MAGIC = b"GGUF"
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_MAX_STRING = 1 << 24
"""A metadata string or tensor name longer than this means the file is not a GGUF this reader trusts."""

Scalar = str | int | float | bool


class GgufError(ValueError):
    """The file is not a readable GGUF; the message says why."""


@dataclass(frozen=True)
class GgufHeader:
    metadata: dict[str, Scalar]
    """Scalar key/value pairs (array values are left out)."""
    tensors: dict[str, tuple[int, ...]]
    """Tensor name -> shape, in GGUF (``ne``) order."""
    types: dict[str, int] = field(default_factory=dict)
    """Tensor name -> ggml type (``GGML_TYPE_*``)."""

    def tensor_bytes(self, name: str) -> int:
        """Bytes of the tensor's data in the file (and in a buffer llama.cpp loads it into)."""
        block, size = GGML_QUANT_SIZES[gguf.GGMLQuantizationType(self.types[name])]
        count = 1
        for n in self.tensors[name]:
            count *= n
        return count // block * size

    def text(self, key: str) -> str:
        value = self.metadata.get(key)
        return value if isinstance(value, str) else ""


class _Reader:
    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def take(self, fmt: str) -> int | float | bool:
        size = struct.calcsize(fmt)
        data = self.stream.read(size)
        if len(data) != size:
            raise GgufError("the file ends inside its header")
        value: int | float | bool = struct.unpack(fmt, data)[0]
        return value

    def count(self) -> int:
        return int(self.take("<Q"))

    def string(self) -> str:
        n = self.count()
        if n > _MAX_STRING:
            raise GgufError("the header holds an implausibly long string")
        data = self.stream.read(n)
        if len(data) != n:
            raise GgufError("the file ends inside its header")
        return data.decode("utf-8", errors="replace")

    def value(self, kind: int) -> Scalar | None:
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            self.skip_array()
            return None
        fmt = _SCALARS.get(kind)
        if fmt is None:
            raise GgufError(f"unknown metadata type {kind}")
        return self.take(fmt)

    def skip_array(self) -> None:
        kind, n = int(self.take("<I")), self.count()
        fmt = _SCALARS.get(kind)
        if fmt is not None:
            self.stream.seek(n * struct.calcsize(fmt), 1)
            return
        for _ in range(n):
            if kind == _STRING:  # only the length is read; the text is skipped
                self.stream.seek(self.count(), 1)
            else:
                self.value(kind)


def read_header(path: Path) -> GgufHeader:
    """Metadata and tensor shapes of the GGUF at ``path``; GgufError when it is not one."""
    with path.open("rb") as stream:
        if stream.read(4) != MAGIC:
            raise GgufError("not a GGUF file (it does not start with the GGUF magic)")
        reader = _Reader(stream)
        version = int(reader.take("<I"))
        if version < 2:
            raise GgufError(f"GGUF version {version} is too old")
        n_tensors, n_kv = reader.count(), reader.count()
        metadata: dict[str, Scalar] = {}
        for _ in range(n_kv):
            key = reader.string()
            value = reader.value(int(reader.take("<I")))
            if value is not None:
                metadata[key] = value
        tensors: dict[str, tuple[int, ...]] = {}
        types: dict[str, int] = {}
        for _ in range(n_tensors):
            name = reader.string()
            n_dims = int(reader.take("<I"))
            if n_dims > 8:
                raise GgufError(f"tensor '{name}' claims {n_dims} dimensions")
            tensors[name] = tuple(reader.count() for _ in range(n_dims))
            types[name] = int(reader.take("<I"))
            reader.take("<Q")  # data offset
        return GgufHeader(metadata, tensors, types)
