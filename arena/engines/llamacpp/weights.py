"""What a GGUF file holds, read from its header (the `gguf` package, no llama.cpp needed): the
quantisation it was saved with ("Q4_1", "Q4_K_M") and how many bytes its tensors take, which is
what llama.cpp streams from memory for every generated token."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from gguf import GGUFReader, LlamaFileType

from arena.model.llm import LoadedModel, gguf_file
from common.errors import UserError

FILE_TYPE = "general.file_type"


@dataclass(frozen=True)
class GgufInfo:
    path: Path
    quant: str  # the file type without "MOSTLY_": "Q4_1", "Q4_K_M", "F16"
    tensor_bytes: int


@lru_cache(maxsize=16)
def read_info(path: Path, size: int, mtime: float) -> GgufInfo:
    """The file's quantisation and tensor bytes (cached per path, size and modification time)."""
    reader = GGUFReader(str(path))
    field = reader.fields.get(FILE_TYPE)
    quant = "unknown"
    if field is not None:
        code = int(field.parts[field.data[0]][0])
        try:
            quant = LlamaFileType(code).name.removeprefix("MOSTLY_")
        except ValueError:
            quant = f"file type {code}"
    return GgufInfo(path, quant, sum(int(t.n_bytes) for t in reader.tensors))


def info(path: Path) -> GgufInfo:
    stat = path.stat()
    return read_info(path, stat.st_size, stat.st_mtime)


def model_gguf(lm: LoadedModel) -> Path:
    """The GGUF file llama.cpp runs for `lm`, or `UserError` for a model that has none."""
    path = gguf_file(lm.source, lm.cache_dir)
    if path is None:
        raise UserError(
            f"the llama.cpp engine runs GGUF files; {lm.name!r} is a {lm.source.partition(':')[0]} model: "
            "use an embedded model (smollm2-135m, gemma-3-270m) or a .gguf path, or ARENA_ENGINE=transformers"
        )
    if not path.is_file():
        raise UserError(f"the GGUF file {path} is missing")
    return path
