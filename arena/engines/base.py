"""The one interface every engine implements (lm-evaluation-harness's `LM` is the model).

An engine turns requests into outputs: `stream_methods` (Compare: partial texts, then each
method's timed result), `run_methods` (the CLI, the benchmark: the results only) and
`generate_slots` (a study's missing outputs, in whatever grouping the engine does best). What it
is given and gives back is in arena/runs/requests.py. `lm` is the app's model: its tokenizer encodes
prompts and decodes tokens for every engine; only the in-process engine runs its weights.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, ClassVar

import decoders
from arena.model.llm import LoadedModel
from arena.runs.requests import Generated, MethodResult, RunRequest, SlotJob, StreamEvent
from common.errors import UserError
from common.messages import text

StopFn = Callable[[], bool]


def model_notes(lm: LoadedModel, lang: str = "en") -> list[str]:
    """The model's notes for the line under it (its licence; raw continuation for a base model), in `lang`."""
    notes = [text("engine_note_licence", lang, licence=lm.licence)] if lm.licence else []
    return notes + ([] if lm.has_chat_template else [text("engine_note_base", lang)])


class Engine(ABC):
    name: ClassVar[str]
    # Whether outputs come from the weights in this process (the model's size, its memory, the trace tab).
    in_process: ClassVar[bool]
    # Whether a run can record why each token was chosen (Compare's token view watches transformers' generate).
    records: ClassVar[bool] = False

    def refuse_record(self, req: RunRequest) -> None:
        """A request that asks to record, on an engine that cannot, is refused before anything runs."""
        if req.record and not self.records:
            raise UserError(
                f"The {self.name} engine cannot record why each token was chosen: the token view watches "
                'transformers\' generate in this process. Untick "Record why each token was chosen", or run '
                "the app with ARENA_ENGINE=transformers."
            )

    @abstractmethod
    def describe(self, lm: LoadedModel, lang: str = "en") -> str:
        """One Markdown line for Compare's header, in `lang`: where outputs come from."""

    def model_label(self, lm: LoadedModel) -> str:
        """What a stored output's model column says."""
        return lm.name

    def check(
        self,
        lm: LoadedModel,
        methods: Sequence[str],
        settings: Mapping[str, Any] | None = None,
        max_new_tokens: int = 16,
    ) -> None:
        """Refuse, before anything runs, a method this engine cannot run (`UserError`)."""
        for m in methods:
            decoders.get(m).resolve((settings or {}).get(m))

    @abstractmethod
    def stream_methods(
        self,
        lm: LoadedModel,
        req: RunRequest,
        interval_s: float = 0.05,
        cancel: threading.Event | None = None,
        ticks: bool = False,
    ) -> Iterator[StreamEvent]:
        """The request's methods one after another in `run_order`, yielding partial texts while each
        generates and its result when it ends. Setting `cancel`, or closing the generator, stops the
        run at the next token. `ticks`: also yield the current state every ~0.25 s while nothing new
        arrives, so a caller that must yield to notice it was abandoned (a Gradio handler) can."""

    def run_methods(
        self, lm: LoadedModel, req: RunRequest, cancel: threading.Event | None = None
    ) -> list[MethodResult]:
        """Every requested method on the same prompt, one after another; results in the order given."""
        results = {
            event.result.method: event.result
            for event in self.stream_methods(lm, req, cancel=cancel)
            if event.result is not None
        }
        if cancel is not None and cancel.is_set() and len(results) < len(req.methods):
            raise UserError("stopped before all methods finished")
        return [results[m] for m in req.methods if m in results]

    @abstractmethod
    def generate_slots(self, lm: LoadedModel, job: SlotJob, should_stop: StopFn | None = None) -> Iterator[Generated]:
        """Generate the job's slots, yielding each piece of work (one output or a batch) as it ends;
        once `should_stop()` is true, nothing new starts. Every refusal comes before the first output."""
