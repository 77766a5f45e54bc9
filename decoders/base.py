"""What a decoder is: a name, a description, typed parameters with ranges, and a plan.

A decoder never samples by hand. It turns validated settings into a `GenerationPlan`: keyword
arguments for transformers' `generate` plus extra `LogitsProcessor`s. The plan also carries
`effective`, the complete settings that will run (library defaults included) and the order of the
processors that run (`processor_order`, decoders/order.py), which is what the UI shows and the store
records.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from transformers import LogitsProcessor

from common.errors import UserError

from .order import ORDER_KEY, processor_order


class InvalidSettings(UserError):
    """A setting is unknown, of the wrong type or out of range. The message is for the user."""


@dataclass(frozen=True)
class Param:
    """One user-settable parameter. `kind` is "float", "int", "bool", "choice" or "text".

    A "text" parameter takes a string of at most `maximum` characters; `normalize`, when given,
    turns it into its canonical form or raises `ValueError` with a message for the user (it must
    be idempotent: settings are resolved again when a plan is made)."""

    name: str
    default: Any
    kind: str = "float"
    minimum: float | None = None
    maximum: float | None = None
    step: float | None = None
    choices: tuple[str, ...] = ()
    label: str = ""
    help: str = ""
    normalize: Callable[[str], str] | None = None

    def validate(self, value: Any) -> Any:
        """Coerce `value` to this parameter's type or raise `InvalidSettings`."""
        where = f"parameter '{self.name}'"
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in {"true", "false", "1", "0"}:
                return value.strip().lower() in {"true", "1"}
            if isinstance(value, (int, float)) and value in (0, 1):
                return bool(value)
            raise InvalidSettings(f"{where} must be true or false, got {value!r}")
        if self.kind == "text":
            if not isinstance(value, str):
                raise InvalidSettings(f"{where} must be text, got {value!r}")
            if self.maximum is not None and len(value) > self.maximum:
                raise InvalidSettings(f"{where} is {len(value):,} characters long; the limit is {int(self.maximum):,}")
            if self.normalize is None:
                return value
            try:
                return self.normalize(value)
            except ValueError as exc:
                raise InvalidSettings(f"{where}: {exc}") from None
        if self.kind == "choice":
            if value not in self.choices:
                raise InvalidSettings(f"{where} must be one of {', '.join(self.choices)}, got {value!r}")
            return value
        if isinstance(value, bool):
            raise InvalidSettings(f"{where} must be a number, got {value!r}")
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond float range
            raise InvalidSettings(f"{where} must be a number, got {value!r}") from None
        if not math.isfinite(number):
            raise InvalidSettings(f"{where} must be a finite number, got {value!r}")
        if self.kind == "int":
            if number != int(number):
                raise InvalidSettings(f"{where} must be a whole number, got {value!r}")
            number = int(number)
        if self.minimum is not None and number < self.minimum:
            raise InvalidSettings(f"{where} must be ≥ {self.minimum}, got {value!r}")
        if self.maximum is not None and number > self.maximum:
            raise InvalidSettings(f"{where} must be ≤ {self.maximum}, got {value!r}")
        return number

    def describe_range(self) -> str:
        if self.kind == "choice":
            return " | ".join(self.choices)
        if self.kind == "bool":
            return "true | false"
        if self.kind == "text":
            return "text" if self.maximum is None else f"text, at most {int(self.maximum):,} characters"
        return f"[{self.minimum}, {self.maximum}]"


@dataclass
class DecodeContext:
    """What a plan may need to know about the model it will run on."""

    tokenizer: Any
    device: torch.device
    logits_size: int  # the model's output width, often larger than len(tokenizer)
    prompt_length: int = 0
    max_new_tokens: int = 128
    cache_dir: str | None = None
    model: Any = None  # for decoders that drive the model themselves (custom_generate)
    prompt: str = ""  # the user's prompt text, before any chat template (for routing)
    # For assisted decoding: a drafting model by name -> (model, tokenizer), loaded on first use; set
    # only by an engine that runs models in this process.
    assistant: Callable[[str], tuple[Any, Any]] | None = None


@dataclass
class GenerationPlan:
    """Everything `generate` needs, plus the complete settings for display and storage.

    `custom_generate`, when set, replaces `model.generate` for decoders that `generate` cannot
    express (it must accept the same keyword arguments the runner passes to `generate`).
    """

    generate_kwargs: dict[str, Any]
    logits_processors: list[LogitsProcessor] = field(default_factory=list)
    effective: dict[str, Any] = field(default_factory=dict)
    custom_generate: Callable[..., Any] | None = None
    notes: str = ""
    batchable: bool = True  # False: `generate` takes one sequence at a time (assisted generation)


PlanFn = Callable[[dict[str, Any], DecodeContext], GenerationPlan]
# (resolved settings, the user's prompt) -> text to add to the prompt, "" for none
InstructionFn = Callable[[dict[str, Any], str], str]


@dataclass(frozen=True)
class Decoder:
    """A registered decoding method.

    `instruction_fn`, when set, makes the method change the prompt as well as the sampling: it
    returns a text for the model to read before the user's prompt (TS-Tilted-Concise's "Use
    concise language."). The decoders never touch prompts; the arena core asks `instruction`
    before it encodes and puts the text in the system prompt (chat) or before the prompt (raw).
    It must depend on the settings and the prompt's text only, since it runs before any plan.
    """

    name: str
    description: str
    params: tuple[Param, ...]
    plan_fn: PlanFn
    stochastic: bool = True
    streams: bool = True  # False where `generate` cannot stream (beam search)
    family: str = "core"
    instruction_fn: InstructionFn | None = None

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def resolve(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Defaults updated with validated `overrides`; unknown names are an error."""
        known = {p.name: p for p in self.params}
        if overrides is not None and not isinstance(overrides, Mapping):
            raise InvalidSettings(f"settings for {self.name} must map parameter names to values, got {overrides!r}")
        settings = self.defaults()
        for key, value in (overrides or {}).items():
            if key not in known:
                raise InvalidSettings(f"{self.name} has no parameter '{key}' (it has: {', '.join(known) or 'none'})")
            settings[key] = known[key].validate(value)
        return settings

    def instruction(self, overrides: Mapping[str, Any] | None, prompt: str) -> str:
        """The text this method adds to the prompt with these settings ("" for none)."""
        if self.instruction_fn is None:
            return ""
        return self.instruction_fn(self.resolve(overrides), prompt)

    def plan(self, overrides: Mapping[str, Any] | None, ctx: DecodeContext) -> GenerationPlan:
        settings = self.resolve(overrides)
        plan = self.plan_fn(settings, ctx)
        plan.generate_kwargs.setdefault("max_new_tokens", ctx.max_new_tokens)
        plan.effective = {"method": self.name, **plan.effective, "max_new_tokens": ctx.max_new_tokens}
        if plan.custom_generate is None and ORDER_KEY not in plan.effective:
            # the order that runs, stored with every output (a custom loop reports its own, or none)
            plan.effective[ORDER_KEY] = processor_order(plan.generate_kwargs, plan.logits_processors)
        return plan


def sampling_effective(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The sampling settings `generate` will really apply, spelled out (top_k=50 is its default)."""
    return {
        "do_sample": True,
        "temperature": kwargs.get("temperature", 1.0),
        "top_k": kwargs.get("top_k", 50),
        "top_p": kwargs.get("top_p", 1.0),
    }
