"""One GGUF model in llama.cpp (`llama-cpp-python`'s low-level API): load, decode, logits, sequences.

The library is imported on first use, never at import time: the app runs without it on every other
engine, and where it is missing the engine says in one line how to get it (`library()`).

A llama.cpp context is not thread-safe. Every call here happens under `Runtime.lock` on the app's
compute thread (arena/model/compute.py), the one thread that runs model work; the engine takes care of both.

The context holds one unified KV cache (`kv_unified`): sequences share cells, so copying a
sequence (`copy_seq`, what beam search does when it reorders its beams) only tags cells with
another sequence id and moves no data. It is sized on demand (`reserve`): a run that needs more
cells than the context has gets a new, larger one before its clock starts.
"""

from __future__ import annotations

import ctypes
import logging
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from common.errors import UserError

VERSION = "0.3.36"  # the pinned llama-cpp-python, built by scripts/setup.sh
INSTALL = (
    f"the llama.cpp engine needs llama-cpp-python {VERSION}, built on this machine: run "
    "`ARENA_ENGINE=llamacpp bash scripts/setup.sh` (8-10 minutes on 2 cores, once; the wheel is cached)"
)
MAX_SEQUENCES = 32  # two banks of up to 16 beams (BS-4's num_beams goes to 16), see beams.py
BATCH = 512  # tokens per llama_decode call while reading a prompt
MIN_CONTEXT = 2048

_lib: ModuleType | None = None
_lib_lock = threading.Lock()


def library() -> ModuleType:
    """`llama_cpp`, imported and initialised once; `UserError` with the way to install it where it is missing."""
    global _lib
    with _lib_lock:
        if _lib is None:
            try:
                # late: an optional package that only this engine needs (and it loads a shared library)
                import llama_cpp
            except (ImportError, OSError) as exc:
                raise UserError(f"{INSTALL} ({type(exc).__name__}: {exc})") from None
            if getattr(llama_cpp, "__version__", "") != VERSION:
                raise UserError(f"{INSTALL}; found llama-cpp-python {getattr(llama_cpp, '__version__', '?')}")
            # its own log callback prints every load line unless its logger says otherwise
            logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)
            llama_cpp.llama_backend_init()
            _lib = llama_cpp
        return _lib


def available() -> bool:
    try:
        library()
    except UserError:
        return False
    return True


class Runtime:
    """A GGUF file loaded by llama.cpp with one context. Use it under `lock`, on the compute thread."""

    def __init__(self, path: str | Path, threads: int):
        lib = library()
        self.lib = lib
        self.path = Path(path)
        self.threads = int(threads)
        self.lock = threading.Lock()
        self.warmed: set[str] = set()
        params = lib.llama_model_default_params()
        model = lib.llama_model_load_from_file(str(self.path).encode(), params)
        if not model:
            raise UserError(f"llama.cpp could not load {self.path}")
        self.model = model
        self.vocab = lib.llama_model_get_vocab(model)
        self.n_vocab = int(lib.llama_vocab_n_tokens(self.vocab))
        self.n_ctx_train = int(lib.llama_model_n_ctx_train(model))
        self.ctx: Any = None
        self.n_ctx = 0
        self.batch = lib.llama_batch_init(BATCH, 0, 1)
        self.reserve(MIN_CONTEXT)

    # ---- the context ---------------------------------------------------------------------------

    def reserve(self, cells: int) -> None:
        """A context with room for `cells` KV cells (a new one, larger, if this one is too small)."""
        if cells <= self.n_ctx:
            return
        if cells > self.n_ctx_train:
            raise UserError(
                f"this run needs {cells:,} positions of context; the model was trained on {self.n_ctx_train:,}: "
                "use a shorter prompt, fewer new tokens or fewer beams"
            )
        size = MIN_CONTEXT
        while size < cells:
            size *= 2
        size = min(size, self.n_ctx_train)
        lib = self.lib
        params = lib.llama_context_default_params()
        params.n_ctx = size
        params.n_batch = params.n_ubatch = BATCH
        params.n_seq_max = MAX_SEQUENCES
        params.n_threads = params.n_threads_batch = self.threads
        params.kv_unified = True
        params.no_perf = True
        ctx = lib.llama_init_from_model(self.model, params)
        if not ctx:
            raise UserError(f"llama.cpp could not make a context of {size:,} tokens for {self.path}")
        if self.ctx is not None:
            lib.llama_free(self.ctx)
        self.ctx, self.n_ctx = ctx, size
        self.memory = lib.llama_get_memory(ctx)

    def clear(self) -> None:
        """Forget every sequence (the next run starts from an empty cache)."""
        self.lib.llama_memory_clear(self.memory, True)

    def copy_seq(self, src: int, dst: int) -> None:
        self.lib.llama_memory_seq_cp(self.memory, src, dst, -1, -1)

    def drop_seq(self, seq: int) -> None:
        self.lib.llama_memory_seq_rm(self.memory, seq, -1, -1)

    # ---- decoding ------------------------------------------------------------------------------

    def decode(self, tokens: list[int], positions: list[int], seqs: list[int], outputs: list[bool]) -> None:
        """One llama_decode of up to BATCH tokens, each at its position in its sequence."""
        b = self.batch
        b.n_tokens = len(tokens)
        for i, (tok, pos, seq, out) in enumerate(zip(tokens, positions, seqs, outputs)):
            b.token[i] = tok
            b.pos[i] = pos
            b.n_seq_id[i] = 1
            b.seq_id[i][0] = seq
            b.logits[i] = out
        rc = self.lib.llama_decode(self.ctx, b)
        if rc != 0:
            raise RuntimeError(f"llama_decode returned {rc} ({len(tokens)} tokens, context {self.n_ctx})")

    def prefill(self, ids: list[int], seq: int = 0) -> np.ndarray:
        """Read a prompt into `seq`; the next-token logits after its last token (a view, valid until
        the next decode)."""
        for start in range(0, len(ids), BATCH):
            chunk = ids[start : start + BATCH]
            last = start + len(chunk) == len(ids)
            outputs = [False] * len(chunk)
            outputs[-1] = last
            self.decode(chunk, list(range(start, start + len(chunk))), [seq] * len(chunk), outputs)
        return self.logits(1)[0]

    def step(self, tokens: list[int], position: int, seqs: list[int]) -> np.ndarray:
        """One new token per sequence, all at `position`; their next-token logits, (len(tokens), vocab)."""
        self.decode(tokens, [position] * len(tokens), seqs, [True] * len(tokens))
        return self.logits(len(tokens))

    def logits(self, rows: int) -> np.ndarray:
        """The last decode's output logits as a float32 view (rows, vocab) onto llama.cpp's buffer."""
        ptr = self.lib.llama_get_logits(self.ctx)
        return np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float)), shape=(rows, self.n_vocab))

    def close(self) -> None:
        lib = self.lib
        if self.ctx is not None:
            lib.llama_free(self.ctx)
            self.ctx = None
        if self.batch is not None:
            lib.llama_batch_free(self.batch)
            self.batch = None
        if self.model:
            lib.llama_model_free(self.model)
            self.model = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # at interpreter exit the library may be gone already; nothing to free then
            pass
