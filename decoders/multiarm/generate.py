"""The multi-arm step loop: one prefill, three arms in one batch, a verifier, backtracking.

Why a hand-written loop and not `generate`: the arms must branch from one shared prefix, be
scored together after every token, jump back to an earlier position (backtracking) and copy
one another's paths (reallocation). `generate` has no hook to rewrite a sequence or its KV
cache mid-run, so the loop drives the model's forward pass itself. Per step the work is one
batched forward for all arms plus a few tensor operations; the only Python loops are over the
arms that backtrack or get copied at that step (at most three), never over tokens or the
vocabulary.

How the shared cache stays correct when arms move independently:
  * the prompt is run once; its cache is then repeated to one row per arm
    (`DynamicCache.batch_repeat_interleave`), so the prefix is never recomputed;
  * every loop step appends one cache slot to every row. A backtrack does not cut the cache
    (rows must stay the same length); it marks the abandoned slots dead in the attention
    mask, and the arm re-feeds its anchor token. Position ids count only live slots, so
    rotary positions are those of the arm's real sequence (a test recomputes the final paths
    from scratch and finds the same log-probs);
  * copying a path from arm h to arm l is `DynamicCache.reorder_cache` with index h at row l.

Decisions the article leaves open, made here:
  * the answer is the arm whose tokens have the highest mean verifier score;
  * arm weights w_a = score_a / Σ score are recorded every step; every `realloc_every` steps the
    lowest-weight arm, if below `prune_weight`, is pruned: it continues from a copy of the
    best arm's path with its own sampling settings (compute moves to the high-score path);
  * an anchor is a token whose score exceeded `anchor_threshold`; without one, the arm goes
    back to the end of the prompt (the prompt is given, so it is the anchor of last resort);
  * backtracks are limited per arm (`max_backtracks`) and need `variance_tokens` new tokens
    since the last one, so the loop always ends (at most 2·max_new_tokens + 8 steps).

Two optional hooks read the arms' answers as token ids (a task preset's rules, e.g. Math-Arms):
  * `trigger(paths)`, after every step: a reason to backtrack for each arm, or None; it fires under
    the same budget as the built-in triggers;
  * `prefer(paths)`, at the end: which answers pass a check; the answer is then the best-scoring
    arm among those that pass (all of them when none does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from .arms import DEFAULT_ARMS, ArmConfig, RowwiseSampler
from .trace import ArmEvent, ArmStep, MultiArmTrace
from .verifier import SignalVerifier, Verifier, masked_mean_var

PathTrigger = Callable[[list[list[int]]], list[str | None]]
PathCheck = Callable[[list[list[int]]], list[bool]]


@dataclass(frozen=True)
class MultiArmSettings:
    arms: tuple[ArmConfig, ...] = DEFAULT_ARMS
    score_window: int = 4  # tokens the verifier looks at
    anchor_threshold: float = 0.85  # article: score > 0.85 marks an anchor
    variance_threshold: float = 2.0  # log-prob variance over `variance_tokens` tokens that triggers
    variance_tokens: int = 3  # article: 3 tokens
    drop_fraction: float = 0.15  # article: score falls > 15% two steps in a row
    reexplore_boost: float = 0.3  # temperature added after a backtrack
    reexplore_tokens: int = 4  # for this many tokens
    max_backtracks: int = 3  # per arm
    realloc_every: int = 8  # steps between prune/copy decisions (0 = never)
    prune_weight: float = 0.2


def _from_end_rank(mask: torch.Tensor) -> torch.Tensor:
    """For each True entry, 1 + the number of True entries after it in its row."""
    return mask.flip(1).long().cumsum(1).flip(1)


@dataclass
class _State:
    """Per-arm tensors of one run. Slot tensors are (arms, slots); the rest (arms,)."""

    slots: torch.Tensor
    live: torch.Tensor
    lp: torch.Tensor
    ent: torch.Tensor
    score: torch.Tensor
    pend_tok: torch.Tensor
    pend_lp: torch.Tensor
    pend_ent: torch.Tensor
    pend_score: torch.Tensor
    has_pending: torch.Tensor
    gen_count: torch.Tensor
    active: torch.Tensor
    reset: torch.Tensor
    reexplore_left: torch.Tensor
    backtracks_left: torch.Tensor
    since_backtrack: torch.Tensor
    extra: dict[str, Any] = field(default_factory=dict)

    def copy_row(self, dst: int, src: int) -> None:
        for name in (
            "slots",
            "live",
            "lp",
            "ent",
            "score",
            "pend_tok",
            "pend_lp",
            "pend_ent",
            "pend_score",
            "has_pending",
            "gen_count",
            "active",
            "reset",
        ):
            tensor = getattr(self, name)
            tensor[dst] = tensor[src]


class MultiArmGenerator:
    """`custom_generate` for the Multi-Arm decoder; keeps the last run's trace in `last_trace`.

    Called like `model.generate` by the runner; returns (1, prompt + answer) token ids.
    `logits_processor` is applied to every step's (arms, vocab) logits (the runner's first-token
    clock is one). A `streamer` gets the prompt, then the chosen answer's tokens once the run is
    over: which arm's text is the answer is only known at the end.
    """

    def __init__(
        self,
        model,
        settings: MultiArmSettings | None = None,
        verifier: Verifier | None = None,
        eos_token_id: int | list[int] | None = None,
        trigger: PathTrigger | None = None,
        prefer: PathCheck | None = None,
    ):
        self.model = model
        self.trigger, self.prefer = trigger, prefer
        self.settings = settings or MultiArmSettings()
        self.verifier = verifier or SignalVerifier()
        eos = eos_token_id if eos_token_id is not None else getattr(model.generation_config, "eos_token_id", None)
        self.eos_ids = [] if eos is None else (list(eos) if isinstance(eos, (list, tuple)) else [int(eos)])
        self.last_trace: MultiArmTrace | None = None

    # -- the loop ------------------------------------------------------------------------------
    def __call__(
        self,
        input_ids: torch.LongTensor,
        attention_mask: torch.Tensor | None = None,
        logits_processor=None,
        streamer=None,
        max_new_tokens: int = 128,
        pad_token_id: int | None = None,
        **_: Any,
    ) -> torch.Tensor:
        if input_ids.shape[0] != 1:
            raise ValueError("multi-arm sampling runs one prompt at a time")
        cfg = self.settings
        arms = list(cfg.arms)
        n_arms, prompt_len, dev = len(arms), input_ids.shape[1], input_ids.device
        pad = int(pad_token_id if pad_token_id is not None else (self.eos_ids[0] if self.eos_ids else 0))
        n_slots = prompt_len + 2 * max_new_tokens + 8
        sampler = RowwiseSampler.for_arms(arms, dev)
        base_t = sampler.temperature.to(dev)
        eos = torch.tensor(self.eos_ids or [-1], device=dev)
        trace = MultiArmTrace(
            [a.name for a in arms], prompt_len, getattr(self.verifier, "describe", lambda: repr(self.verifier))()
        )
        self.last_trace = trace
        if streamer is not None:
            streamer.put(input_ids[0].cpu())

        z = lambda dtype=torch.float32: torch.zeros(n_arms, n_slots, dtype=dtype, device=dev)  # noqa: E731
        v = lambda fill=0, dtype=torch.float32: torch.full((n_arms,), fill, dtype=dtype, device=dev)  # noqa: E731
        st = _State(
            slots=z(torch.long),
            live=z(torch.bool),
            lp=z(),
            ent=z(),
            score=z(),
            pend_tok=v(pad, torch.long),
            pend_lp=v(),
            pend_ent=v(),
            pend_score=v(),
            has_pending=v(False, torch.bool),
            gen_count=v(0, torch.long),
            active=v(True, torch.bool),
            reset=v(False, torch.bool),
            reexplore_left=v(0, torch.long),
            backtracks_left=v(cfg.max_backtracks, torch.long),
            since_backtrack=v(0, torch.long),
        )
        st.slots[:, :prompt_len] = input_ids[0]
        st.live[:, :prompt_len] = True

        out = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=True, logits_to_keep=1)
        trace.forward_passes += 1
        prefill_logits = out.logits[:, -1, :].float()
        cache = out.cache if hasattr(out, "cache") else out.past_key_values
        cache.batch_repeat_interleave(n_arms)
        logits = prefill_logits.repeat(n_arms, 1)  # a real tensor: processors may write in place
        cur, step = prompt_len, 0
        while True:
            if logits_processor is not None:
                logits = logits_processor(st.slots[:, :cur], logits)
            self._sample(st, sampler, base_t, logits, cur, prompt_len, step, trace)
            st.active &= ~(torch.isin(st.pend_tok, eos) | (st.gen_count >= max_new_tokens))
            self._backtrack(st, cur, prompt_len, step, trace)
            if cfg.realloc_every and step > 0 and step % cfg.realloc_every == 0:
                self._reallocate(st, cache, step, trace)
            if not bool(st.active.any()) or cur >= n_slots:
                break
            # Feed each active arm's pending token into a new slot; finished arms, and arms sent back
            # to the prompt (nothing to feed), get a dead slot (masked out) so the batch stays rectangular.
            feed_live = st.active & st.has_pending
            st.slots[:, cur] = torch.where(feed_live, st.pend_tok, torch.full_like(st.pend_tok, pad))
            st.live[:, cur] = feed_live
            st.lp[:, cur], st.ent[:, cur], st.score[:, cur] = st.pend_lp, st.pend_ent, st.pend_score
            st.has_pending &= ~feed_live
            positions = st.live[:, :cur].sum(dim=1, keepdim=True)
            out = self.model(
                input_ids=st.slots[:, cur : cur + 1],
                attention_mask=st.live[:, : cur + 1].long(),
                position_ids=positions,
                cache=cache,
                use_cache=True,
            )
            trace.forward_passes += 1
            cur += 1
            step += 1
            logits = torch.where(st.reset[:, None], prefill_logits, out.logits[:, -1, :].float())
            st.reset[:] = False

        return self._finish(st, input_ids, cur, prompt_len, trace, streamer)

    # -- pieces of one step ---------------------------------------------------------------------
    def _sequence(self, st: _State, cur: int, prompt_len: int) -> tuple[torch.Tensor, ...]:
        """Each arm's answer so far as masked (arms, n) views: live slots then the pending token."""
        mask = torch.cat([st.live[:, prompt_len:cur], st.has_pending[:, None]], dim=1)
        lp = torch.cat([st.lp[:, prompt_len:cur], st.pend_lp[:, None]], dim=1)
        ent = torch.cat([st.ent[:, prompt_len:cur], st.pend_ent[:, None]], dim=1)
        score = torch.cat([st.score[:, prompt_len:cur], st.pend_score[:, None]], dim=1)
        return mask, lp, ent, score

    def _sample(
        self,
        st: _State,
        sampler: RowwiseSampler,
        base_t: torch.Tensor,
        logits: torch.Tensor,
        cur: int,
        prompt_len: int,
        step: int,
        trace: MultiArmTrace,
    ) -> None:
        cfg = self.settings
        moving = st.active.clone()
        temperature = base_t + cfg.reexplore_boost * (st.reexplore_left > 0).float()
        token = sampler.sample(logits, temperature)
        logp = torch.log_softmax(logits, dim=-1)
        token_lp = logp.gather(1, token[:, None]).squeeze(1)
        entropy = -(logp.exp() * logp.nan_to_num(neginf=0.0)).sum(dim=-1)
        st.pend_tok = torch.where(moving, token, st.pend_tok)
        st.pend_lp = torch.where(moving, token_lp, st.pend_lp)
        st.pend_ent = torch.where(moving, entropy, st.pend_ent)
        st.has_pending |= moving
        st.gen_count += moving.long()
        st.since_backtrack += moving.long()
        st.reexplore_left = (st.reexplore_left - moving.long()).clamp(min=0)

        mask, lp, ent, _ = self._sequence(st, cur, prompt_len)
        window = mask & (_from_end_rank(mask) <= cfg.score_window)
        scores = self.verifier(lp, ent, window).float()
        st.pend_score = torch.where(moving, scores, st.pend_score)
        weights = self._weights(st)
        rows = zip(
            moving.tolist(),
            st.pend_tok.tolist(),
            st.pend_lp.tolist(),
            st.pend_ent.tolist(),
            st.pend_score.tolist(),
            weights.tolist(),
            temperature.tolist(),
            st.gen_count.tolist(),
        )
        for arm, (m, tok, lp_, ent_, sc, w, t, n) in enumerate(rows):
            if m:
                trace.steps.append(ArmStep(step, arm, n - 1, tok, lp_, ent_, sc, w, t))

    @staticmethod
    def _paths(st: _State, mask: torch.Tensor, cur: int, prompt_len: int) -> list[list[int]]:
        """Each arm's answer so far as token ids (live slots, then the pending token)."""
        tokens = torch.cat([st.slots[:, prompt_len:cur], st.pend_tok[:, None]], dim=1)
        return [tokens[a][mask[a]].tolist() for a in range(tokens.shape[0])]

    @staticmethod
    def _weights(st: _State) -> torch.Tensor:
        """w_a = score_a / Σ score over arms that have a token (the article's §3.2 weighting)."""
        s = st.pend_score * st.has_pending.float()
        return s / s.sum().clamp(min=1e-12)

    def _backtrack(self, st: _State, cur: int, prompt_len: int, step: int, trace: MultiArmTrace) -> None:
        cfg = self.settings
        mask, lp, _, score = self._sequence(st, cur, prompt_len)
        rank = _from_end_rank(mask)
        last = mask & (rank <= cfg.variance_tokens)
        count = last.sum(dim=1)
        _, var = masked_mean_var(lp, last)
        s1, s2, s3 = ((score * (mask & (rank == r)).float()).sum(dim=1) for r in (1, 2, 3))
        high_variance = (count >= cfg.variance_tokens) & (var > cfg.variance_threshold)
        falling = (mask.sum(dim=1) >= 3) & (s1 < (1 - cfg.drop_fraction) * s2) & (s2 < (1 - cfg.drop_fraction) * s3)
        allowed = st.active & (st.backtracks_left > 0) & (st.since_backtrack >= cfg.variance_tokens)
        hooked: list[str | None] = [None] * mask.shape[0]
        if self.trigger is not None and bool(allowed.any()):
            hooked = self.trigger(self._paths(st, mask, cur, prompt_len))
        by_hook = torch.tensor([r is not None for r in hooked], device=mask.device)
        fire = allowed & (high_variance | falling | by_hook)
        if not bool(fire.any()):
            return
        gen_live = st.live[:, prompt_len:cur]
        index = torch.arange(cur - prompt_len, device=gen_live.device)
        anchor = (
            torch.where(gen_live & (st.score[:, prompt_len:cur] > cfg.anchor_threshold), index, -1).max(dim=1).values
            if cur > prompt_len
            else torch.full_like(st.gen_count, -1)
        )
        for arm in fire.nonzero().flatten().tolist():
            if high_variance[arm]:
                why = f"log-prob variance {var[arm].item():.2f} > {cfg.variance_threshold} over {cfg.variance_tokens} tokens"
            elif falling[arm]:
                why = (
                    f"score fell >{cfg.drop_fraction:.0%} twice: "
                    f"{s3[arm].item():.2f} → {s2[arm].item():.2f} → {s1[arm].item():.2f}"
                )
            else:
                why = str(hooked[arm])
            j = int(anchor[arm])
            if j >= 0:  # re-feed the anchor token; everything after it is dead
                slot = prompt_len + j
                st.pend_tok[arm], st.pend_lp[arm] = st.slots[arm, slot], st.lp[arm, slot]
                st.pend_ent[arm], st.pend_score[arm] = st.ent[arm, slot], st.score[arm, slot]
                st.live[arm, slot:cur] = False
                st.gen_count[arm] = st.live[arm, prompt_len:cur].sum() + 1
                where = f"anchor at answer position {int(st.gen_count[arm]) - 1}"
            else:  # no anchor yet: back to the end of the prompt
                st.live[arm, prompt_len:cur] = False
                st.has_pending[arm] = False
                st.pend_score[arm] = 0.0
                st.reset[arm] = True
                st.gen_count[arm] = 0
                where = "no anchor yet, back to the end of the prompt"
            st.reexplore_left[arm] = cfg.reexplore_tokens
            st.backtracks_left[arm] -= 1
            st.since_backtrack[arm] = 0
            trace.events.append(ArmEvent(step, arm, "backtrack", int(st.gen_count[arm]), f"{why}; {where}"))

    def _reallocate(self, st: _State, cache, step: int, trace: MultiArmTrace) -> None:
        cfg = self.settings
        candidates = st.active & st.has_pending
        if int(candidates.sum()) < 2:
            return
        weights = self._weights(st)
        masked = torch.where(candidates, weights, torch.full_like(weights, float("inf")))
        low = int(masked.argmin())
        high = int(torch.where(candidates, weights, torch.full_like(weights, -1.0)).argmax())
        if low == high or float(weights[low]) >= cfg.prune_weight:
            return
        order = torch.arange(len(weights), device=weights.device)
        order[low] = high
        cache.reorder_cache(order)
        st.copy_row(low, high)
        st.reexplore_left[low] = 0
        st.since_backtrack[low] = 0
        trace.events.append(
            ArmEvent(
                step,
                low,
                "copy",
                int(st.gen_count[low]),
                f"weight {float(weights[low]):.2f} < {cfg.prune_weight}: pruned, continues from "
                f"{trace.arm_names[high]}'s path (weight {float(weights[high]):.2f})",
                source=high,
            )
        )

    def _finish(
        self, st: _State, input_ids: torch.Tensor, cur: int, prompt_len: int, trace: MultiArmTrace, streamer
    ) -> torch.Tensor:
        mask, lp, _, score = self._sequence(st, cur, prompt_len)
        tokens = torch.cat([st.slots[:, prompt_len:cur], st.pend_tok[:, None]], dim=1)
        mean_score, _ = masked_mean_var(score, mask)
        trace.mean_scores = mean_score.tolist()
        trace.paths = [tokens[a][mask[a]].tolist() for a in range(tokens.shape[0])]
        trace.path_logprobs = [lp[a][mask[a]].tolist() for a in range(tokens.shape[0])]
        candidates = mask.any(dim=1)
        if self.prefer is not None:
            passed = torch.tensor(self.prefer(trace.paths), dtype=torch.bool, device=mask.device) & candidates
            trace.passed = passed.tolist()
            candidates = passed if bool(passed.any()) else candidates
        chosen = int(torch.where(candidates, mean_score, torch.full_like(mean_score, -1.0)).argmax())
        trace.chosen = chosen
        answer = tokens[chosen][mask[chosen]]
        if streamer is not None:
            for token in answer.tolist():
                streamer.put(torch.tensor([token]))
            streamer.end()
        return torch.cat([input_ids[0], answer.to(input_ids.dtype)])[None, :]
