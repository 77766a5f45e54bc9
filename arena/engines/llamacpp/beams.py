"""Beam search on llama.cpp: every beam a llama.cpp sequence, all beams in one batch per step.

llama.cpp has no beam search, so this is transformers 5.24's `_beam_search` (generation/utils.py)
written out for one prompt, step for step and in float32 as there:

* per step, log-softmax of each beam's logits, then the plan's processors on those
  log-probabilities with each beam's sequence (n-gram blocking sees the prompt too), plus each
  beam's running score; the top K = max(2, 1 + number of end ids) x beams of all beams' candidates;
* candidates that end (an end id, or the length limit) are offered to the finished hypotheses,
  scored sum of log-probabilities / (new tokens ** length_penalty), only if among the first
  `num_beams` candidates; the best `num_beams` of the rest run on;
* it stops when no running beam can beat the finished ones (transformers' heuristic), when
  `num_beams` hypotheses are finished and early_stopping is True, or when every candidate ends;
  the answer is the best finished hypothesis.

The KV cache: the running beams live in sequences 0..B-1 (one bank); when a step reorders them,
each new beam's parent sequence is copied into the other bank (B..2B-1) and the old bank is
dropped, so a parent with two children is copied twice and a beam without children disappears. In
the unified cache a copy only tags the cells (runtime.py). The prompt is read once and shared.
The two engines compute in different precisions (llama.cpp the GGUF's quantised weights,
transformers the de-quantised float32 ones), so their beams agree on most prompts, not all.
"""

from __future__ import annotations

import threading
import time

import torch

from .generate import Timed
from .record import BeamRecord
from .runtime import Runtime
from .translate import EnginePlan

NEG = -1.0e9  # transformers' "never chosen" score


def beam_tokens(
    rt: Runtime,
    plan: EnginePlan,
    prompt: list[int],
    max_new: int,
    cancel: threading.Event | None = None,
    record: bool = False,
) -> Timed:
    """The best finished hypothesis's new tokens; the caller holds `rt.lock` on the compute thread."""
    assert plan.beams is not None
    beams, lp, early = plan.beams.num_beams, plan.beams.length_penalty, plan.beams.early_stopping
    eos = torch.tensor(plan.eos_ids, dtype=torch.long)
    keep = max(2, 1 + len(plan.eos_ids)) * beams
    top_mask = torch.arange(keep) < beams
    length, vocab = len(prompt), rt.n_vocab
    max_length = length + max_new
    rt.reserve(length + beams * (max_new + 2))
    rt.clear()
    banks = (list(range(beams)), list(range(beams, 2 * beams)))
    fill = plan.eos_ids[0] if plan.eos_ids else 0
    running = torch.full((beams, max_length), fill, dtype=torch.long)
    running[:, :length] = torch.tensor(prompt, dtype=torch.long)
    sequences = running.clone()
    running_scores = torch.full((beams,), NEG, dtype=torch.float32)
    running_scores[0] = 0.0
    scores = torch.full((beams,), NEG, dtype=torch.float32)
    finished = torch.zeros(beams, dtype=torch.bool)
    new_tokens = torch.zeros(beams, dtype=torch.long)  # each finished hypothesis's length
    unsatisfied = True
    rec = BeamRecord(plan.stages, beams) if record else None

    start = time.perf_counter()
    rows = torch.from_numpy(rt.prefill(prompt, banks[0][0])).view(1, vocab).expand(beams, vocab)
    first = time.perf_counter()
    for seq in banks[0][1:]:
        rt.copy_seq(banks[0][0], seq)
    cur, bank = length, 0
    while cancel is None or not cancel.is_set():
        logp = torch.log_softmax(rows.float(), dim=-1)
        for hook in plan.hooks:
            logp = hook(running[:, :cur], logp)
        top_scores, top_index = torch.topk((logp + running_scores[:, None]).reshape(-1), keep)
        parents, tokens = top_index // vocab, top_index % vocab
        candidates = running[parents].clone()
        candidates[:, cur] = tokens
        hits = torch.isin(tokens, eos) | (cur + 1 >= max_length)

        # the best `beams` candidates that did not end run on
        run_scores = top_scores + hits.float() * NEG
        chosen = torch.topk(run_scores, beams).indices
        next_running, next_scores, next_parents = candidates[chosen], run_scores[chosen], parents[chosen]

        # ended candidates among the first `beams` join the finished hypotheses if good enough
        ended = hits & top_mask
        offered = top_scores / ((cur + 1 - length) ** lp)
        if bool(finished.all()) and early is True:
            offered = offered + NEG
        if not unsatisfied:
            offered = offered + NEG
        offered = offered + (~ended).float() * NEG
        best = torch.topk(torch.cat((scores, offered)), beams).indices
        sequences = torch.cat((sequences, candidates))[best]
        scores = torch.cat((scores, offered))[best]
        finished = torch.cat((finished, ended))[best]
        new_tokens = torch.cat((new_tokens, torch.full((keep,), cur + 1 - length)))[best]

        running, running_scores = next_running, next_scores
        cur += 1
        hypothetical = (max_length - length) if (early == "never" and lp > 0.0) else (cur - length)
        best_running = running_scores[0] / (hypothetical**lp)
        worst = torch.where(finished, scores.min(), torch.tensor(NEG))
        unsatisfied = unsatisfied and bool((best_running > worst).any())
        if rec is not None:
            rec.step(running[:, length:cur].tolist(), running_scores.tolist())
        if not unsatisfied or (bool(finished.all()) and early is True) or bool(hits.all()):
            break

        old, new = banks[bank], banks[1 - bank]
        for j, parent in enumerate(next_parents.tolist()):
            rt.copy_seq(old[parent], new[j])
        for seq in old:
            rt.drop_seq(seq)
        bank = 1 - bank
        rows = torch.from_numpy(rt.step(running[:, cur - 1].tolist(), cur - 1, new))
    end = time.perf_counter()

    out = sequences[0, length : length + int(new_tokens[0])].tolist()
    finish = "eos" if out and out[-1] in plan.eos_ids else "length"
    recorded = rec.finish(out) if rec is not None else None
    return Timed(out, (first - start) * 1000, (end - start) * 1000, finish, recorded)
