"""Progress and time left while a study's outputs are generated, from this run's own measurements.

`GenerationEta` is fed as each piece of work ends (one output, or a batch of one method), with the
new tokens of its outputs. The wall time since the previous piece ended is that piece's: a study
runs one method at a time (arena/engines/local/study.py), so the time is the method's. Per method,
throughput = its tokens / its wall time in this run, which counts whatever the run really pays
(model warm-up, batching, a busy machine); each output is expected to be as long as the mean of the
method's finished ones (else of all finished ones, else `max_new_tokens`). Time left is
Σ over methods of remaining outputs × expected tokens / throughput.

A method not reached yet runs at this run's overall throughput, scaled by how it compared with the
measured methods where a prior says so (`prior`: tokens/s per method from Compare runs,
arena/runs/estimate.py), e.g. beam search slower than sampling. Before the first output ends there is no
measurement of this run: the prior alone gives a figure, said to be one, or there is none.

Example, with a fake clock:

>>> now = [0.0]
>>> eta = GenerationEta(clock=lambda: now[0])
>>> eta.start(0, 4, {"TS-Temp": 4}, max_new_tokens=10)
>>> now[0] = 2.0
>>> eta.finished("TS-Temp", [10])  # 10 tokens in 2 s: 5 tokens/s
>>> eta.snapshot().seconds_left  # 3 more outputs of 10 tokens at 5 tokens/s
6.0
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from common.messages import text


def duration(seconds: float, lang: str = "en") -> str:
    """A time as people read it, in `lang`: seconds below 90 s, minutes below 90 min, else hours.

    >>> duration(40), duration(180), duration(3 * 3600), duration(180, "zh")
    ('40 s', '3 min', '3.0 h', '3 分钟')
    """
    seconds = max(0.0, seconds)
    if seconds < 90:
        return text("duration_seconds", lang, n=max(1, round(seconds)))
    if seconds < 90 * 60:
        return text("duration_minutes", lang, n=round(seconds / 60))
    return text("duration_hours", lang, n=f"{seconds / 3600:.1f}")


def speed(tokens_per_s: float) -> str:
    """A throughput as people read it: slow runs keep their first digits ("0.31 tokens/s", never "0").

    >>> speed(0.314), speed(7.25), speed(41.6)
    ('0.31', '7.2', '42')
    """
    return f"{tokens_per_s:.2g}" if tokens_per_s < 10 else f"{tokens_per_s:.0f}"


@dataclass(frozen=True)
class Snapshot:
    """Where a generation run stands: outputs stored of the study's total, and the time left."""

    done: int
    total: int
    seconds_left: float | None  # None: nothing to estimate from yet
    tokens_per_s: float | None  # this run's measured throughput, all methods so far
    from_prior: bool = False  # the figure comes from earlier Compare runs, not from this run
    elapsed_s: float = 0.0

    def line(self, lang: str = "en") -> str:
        """One line for a progress bar, in `lang`: "3 of 18 outputs · about 2 min left (41 tokens/s measured…)"."""
        head = text("eta_outputs", lang, done=self.done, total=self.total)
        if self.done >= self.total:
            took = text("eta_took", lang, duration=duration(self.elapsed_s, lang)) if self.elapsed_s else ""
            rate = text("eta_rate", lang, speed=speed(self.tokens_per_s)) if took and self.tokens_per_s else ""
            return head + took + rate
        if self.seconds_left is None:
            return head + text("eta_unmeasured", lang)
        if self.from_prior:
            return head + text("eta_prior", lang, duration=duration(self.seconds_left, lang))
        return head + text(
            "eta_measured", lang, duration=duration(self.seconds_left, lang), speed=speed(self.tokens_per_s or 0.0)
        )


class GenerationEta:
    """Outputs done / total and the time left, updated as each piece of a generation run ends.

    Args:
        prior: tokens/s per method measured earlier on this model (arena/runs/estimate.py), used only for
            how methods compare with each other and, before the first output, as the estimate.
        clock: seconds, monotonic; a fake one in tests.
    """

    def __init__(self, prior: Mapping[str, float] | None = None, clock: Callable[[], float] = time.monotonic):
        self.prior = {m: float(v) for m, v in (prior or {}).items() if v and v > 0}
        self.clock = clock
        self.done = self.total = 0
        self.max_new_tokens = 1
        self.remaining: dict[str, int] = {}
        self.tokens: dict[str, list[int]] = {}  # per method: new tokens of each finished output
        self.seconds: dict[str, float] = {}  # per method: wall time of its pieces
        self.started = self.last = 0.0

    def start(self, done: int, total: int, remaining: Mapping[str, int], max_new_tokens: int) -> None:
        """The run begins: `done` of `total` outputs stored already, `remaining` to make per method."""
        self.done, self.total = int(done), int(total)
        self.remaining = {m: int(n) for m, n in remaining.items() if n > 0}
        self.max_new_tokens = max(1, int(max_new_tokens))
        self.tokens, self.seconds = {}, {}
        self.started = self.last = self.clock()

    def finished(self, method: str, new_tokens: Sequence[int]) -> None:
        """A piece of `method` ended now, with these outputs (their new-token counts)."""
        now = self.clock()
        self.seconds[method] = self.seconds.get(method, 0.0) + max(0.0, now - self.last)
        self.last = now
        counts = [max(0, int(n or 0)) for n in new_tokens]
        self.tokens.setdefault(method, []).extend(counts)
        self.done += len(counts)
        if method in self.remaining:
            self.remaining[method] = max(0, self.remaining[method] - len(counts))

    def rate(self, method: str | None = None) -> float | None:
        """Measured tokens/s of `method` in this run (None: all methods), or None if not measured."""
        keys = [method] if method is not None else list(self.tokens)
        tokens = sum(sum(self.tokens.get(k, [])) for k in keys)
        seconds = sum(self.seconds.get(k, 0.0) for k in keys)
        return tokens / seconds if tokens > 0 and seconds > 0 else None

    def _expected_tokens(self, method: str) -> float:
        own = self.tokens.get(method) or [n for counts in self.tokens.values() for n in counts]
        return statistics.fmean(own) if own else float(self.max_new_tokens)

    def _rate_for(self, method: str, overall: float) -> float:
        own = self.rate(method)
        if own is not None:
            return own
        # The prior's view of this method against the ones measured here: scales the run's rate.
        measured = [m for m in self.tokens if m in self.prior and self.rate(m) is not None]
        if method in self.prior and measured:
            return overall * self.prior[method] / statistics.fmean(self.prior[m] for m in measured)
        return overall

    def snapshot(self) -> Snapshot:
        elapsed = self.clock() - self.started
        left = {m: n for m, n in self.remaining.items() if n > 0}
        overall = self.rate()
        if not left:
            return Snapshot(self.done, self.total, 0.0, overall, elapsed_s=elapsed)
        if overall is None:
            if not self.prior or any(m not in self.prior for m in left):
                return Snapshot(self.done, self.total, None, None, elapsed_s=elapsed)
            seconds = sum(n * self.max_new_tokens / self.prior[m] for m, n in left.items())
            return Snapshot(self.done, self.total, seconds, None, from_prior=True, elapsed_s=elapsed)
        seconds = sum(n * self._expected_tokens(m) / self._rate_for(m, overall) for m, n in left.items())
        return Snapshot(self.done, self.total, seconds, overall, elapsed_s=elapsed)
