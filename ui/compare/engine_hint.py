"""The faster engine, one line away: on a CPU running transformers, the line next to Run says that
llama.cpp runs the same model's GGUF several times faster (docs/performance.md measures it), and how
to get it: the start command where llama-cpp-python is installed here, the one-time build first where
it is not. Nothing is said where llama.cpp would not help (a GPU, vLLM, llama.cpp itself, a model
without a GGUF file)."""

from __future__ import annotations

from typing import Any

from arena.engines.llamacpp.runtime import available
from common.messages import text

INSTALLED = "compare_llamacpp_installed"
NOT_INSTALLED = "compare_llamacpp_not_installed"


def faster_engine(engine: str, device: str, has_gguf: bool, installed: bool) -> str:
    """The message id of the hint for this setup, "" when llama.cpp would not make Compare faster."""
    if engine != "transformers" or device != "cpu" or not has_gguf:
        return ""
    return INSTALLED if installed else NOT_INSTALLED


def hint_for(engine: str, lm: Any) -> str:
    """`faster_engine` for the app's model: whether it has a GGUF and llama-cpp-python loads here."""
    device = getattr(getattr(lm, "device", None), "type", "")
    if engine != "transformers" or device != "cpu":
        return ""  # the checks below load a shared library: only where the answer matters
    # an embedded model or a .gguf path has one (arena.model.llm.gguf_file; not called: it may assemble a file)
    has_gguf = str(getattr(lm, "source", "")).partition(":")[0] in ("embedded", "gguf")
    return faster_engine(engine, device, has_gguf, has_gguf and available())


def hint_line(key: str, lang: str = "en") -> str:
    """The hint in `lang`, "" for no hint."""
    return text(key, lang) if key else ""
