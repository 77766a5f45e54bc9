"""Perplexity of continuations given their prompts, batched.

Definition (Holtzman et al. 2020; the same for generated and human text):
  * only continuation tokens are scored: the prompt's labels are -100;
  * NLL in natural log; per item PPL = exp(NLL_item / n_item);
  * corpus PPL = exp(sum NLL / sum n), i.e. a token-weighted mean, not a mean of item PPLs.

BOS handling, the same for every text: the prompt is encoded exactly as for generation
(`arena.inputs.prompts.encode_prompt`: the chat template, or for raw text the tokenizer with its own
special tokens, which for SmolLM2 is no BOS), without any method's instruction (TS-Tilted-Concise
generates after "Use concise language." in the system prompt, but its text is scored after the
user's prompt alone, as every other method's: docs/decoders.md). The continuation is tokenized on its own without
special tokens, so the prompt/continuation boundary is the one generation saw, as long as encoding
both jointly gives the same ids; where it does not (a prompt ending in a space or mid-word), the
pair is split the lm-evaluation-harness way and flagged (`encode_pair`). A prompt that
encodes to nothing gets the tokenizer's BOS (else EOS) so the first token has a context. For the
runner's outputs the generated ids themselves are scored, minus a final end-of-sequence token
(human text has none, so neither is counted).

Dtype: scores are computed in the model's dtype (`lm.dtype_name`; logits are upcast to fp32 for the
loss). The batched-equals-loop check at 1e-4 is an fp32 check; caches of scores are keyed by dtype.

Batching pads on the right with an attention mask: under a causal mask, real tokens never see the
padding, so a batched score equals the one-at-a-time score up to float rounding. Logits are
computed only at the scored positions (the LM head applied to those hidden states), which saves
most of the head's cost for long prompts; models whose logits are more than `lm_head(hidden)`
(soft-capping, logit scaling) use the full forward instead.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from arena.inputs.prompts import SCENARIOS, clean_prompt, encode_prompt
from arena.model.llm import LoadedModel, end_ids, lookup
from arena.model.zerogpu import duration_s, gpu_task


@dataclass(frozen=True)
class ItemScore:
    nll: float  # summed over the continuation's tokens, natural log
    tokens: int

    @property
    def ppl(self) -> float:
        return math.exp(self.nll / self.tokens) if self.tokens else math.nan


def corpus_ppl(scores: Sequence[ItemScore]) -> float:
    """exp(sum NLL / sum tokens) over the items that have tokens; NaN if none."""
    n = sum(s.tokens for s in scores)
    return math.exp(sum(s.nll for s in scores) / n) if n else math.nan


def _start_ids(tokenizer) -> list[int]:
    tok = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    return [int(tok)]


class EncodedPair(tuple):
    """(prompt ids, continuation ids), unpacks like a pair; `.harness` is True when the joint
    encoding disagreed with the separate one and the lm-evaluation-harness split was used."""

    harness: bool

    def __new__(cls, prompt_ids: list[int], cont_ids: list[int], harness: bool = False) -> EncodedPair:
        obj = super().__new__(cls, (list(prompt_ids), list(cont_ids)))
        obj.harness = harness
        return obj


def _prompt_text(tokenizer, prompt: str, raw: bool) -> tuple[str, bool]:
    """The text generation's prompt ids encode, and whether the tokenizer adds its special tokens to it."""

    prompt = clean_prompt(prompt)
    if not raw and getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False
        ), False
    return prompt, True


def encode_pair(lm: LoadedModel, prompt: str, continuation: str, raw: bool = True) -> EncodedPair:
    """Prompt ids exactly as generation encodes them, continuation ids without special tokens, when
    encoding prompt + continuation jointly gives exactly those ids one after the other (true for
    generated text and for most boundaries). Where it does not (a prompt ending in a space or
    mid-word, "The cat sat on the " + "mat"), tokenizing the continuation alone scores a split no
    tokenizer would make, so the pair is encoded the lm-evaluation-harness way instead: the
    prompt's trailing whitespace moves to the continuation, context = encode(prompt), whole =
    encode(prompt + continuation), continuation ids = whole[len(context):]; `.harness` says so.
    As in the harness, a token that spans a mid-word boundary (" m" + "at" -> " mat") belongs to
    neither side: the continuation's scored ids start after it."""
    tok = lm.tokenizer
    prompt_ids = (
        encode_prompt(tok, prompt, raw, torch.device("cpu"), lm.context_length, 0)[0].tolist() if prompt.strip() else []
    )
    cont_ids = list(tok(continuation, add_special_tokens=False)["input_ids"])
    if not prompt_ids or not continuation:
        return EncodedPair(prompt_ids or _start_ids(tok), cont_ids)
    text, special = _prompt_text(tok, prompt, raw)
    whole = list(tok(text + continuation, add_special_tokens=special)["input_ids"])
    if whole == prompt_ids + cont_ids:
        return EncodedPair(prompt_ids, cont_ids)
    context = text.rstrip()
    moved = text[len(context) :] + continuation
    context_ids = list(tok(context, add_special_tokens=special)["input_ids"])
    whole = list(tok(context + moved, add_special_tokens=special)["input_ids"])
    return EncodedPair(context_ids or _start_ids(tok), whole[len(context_ids) :], harness=True)


def strip_end(lm: LoadedModel, token_ids: Sequence[int]) -> list[int]:
    """Generated ids without a final end-of-sequence / padding token."""
    ends = end_ids(lm.tokenizer)
    ids = list(token_ids)
    while ids and ids[-1] in ends:
        ids.pop()
    return ids


def _fit(lm: LoadedModel, prompt: list[int], cont: list[int]) -> tuple[list[int], list[int]]:
    """Cut to the context: drop the oldest prompt tokens first (keeping one), then the tail."""
    room = lm.context_length
    if len(prompt) + len(cont) > room:
        keep = max(1, room - len(cont))
        prompt = prompt[-keep:]
        cont = cont[: room - len(prompt)]
    return prompt, cont


def _head_only(model: Any) -> bool:
    cfg = model.config
    return (
        getattr(model, "base_model", None) is not None
        and model.get_output_embeddings() is not None
        and not getattr(cfg, "final_logit_softcapping", None)
        and getattr(cfg, "logit_scale", None) in (None, 1, 1.0)
    )


@torch.inference_mode()
def _score_batch(lm: LoadedModel, batch: list[tuple[list[int], list[int]]]) -> list[ItemScore]:
    model = lm.model
    width = max(len(p) + len(c) for p, c in batch)
    pad = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else 0
    ids = torch.full((len(batch), width), pad, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    scored = torch.zeros((len(batch), width), dtype=torch.bool)  # positions whose *next* token is scored
    for row, (p, c) in enumerate(batch):
        seq = p + c
        ids[row, : len(seq)] = torch.tensor(seq)
        mask[row, : len(seq)] = 1
        scored[row, len(p) - 1 : len(seq) - 1] = True
    targets = torch.roll(ids, -1, dims=1)[scored].to(lm.device)
    ids, mask = ids.to(lm.device), mask.to(lm.device)
    if _head_only(model):
        hidden = model.base_model(input_ids=ids, attention_mask=mask).last_hidden_state
        logits = model.get_output_embeddings()(hidden[scored.to(lm.device)])
    else:
        logits = model(input_ids=ids, attention_mask=mask).logits[scored.to(lm.device)]
    nll = torch.nn.functional.cross_entropy(logits.float(), targets, reduction="none").double().cpu()
    counts = scored.sum(dim=1).tolist()
    out, start = [], 0
    for n in counts:
        out.append(ItemScore(float(nll[start : start + n].sum()), int(n)))
        start += n
    return out


def continuation_scores(
    lm: LoadedModel,
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]],
    batch_size: int = 16,
    max_batch_tokens: int = 8192,
    progress: Any = None,
) -> list[ItemScore]:
    """Score (prompt ids, continuation ids) pairs; results in input order. Items are grouped by
    length so a batch holds little padding; `progress(n)` is called after each batch."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    fitted = [_fit(lm, list(p) or _start_ids(lm.tokenizer), list(c)) for p, c in pairs]
    results: list[ItemScore | None] = [None] * len(fitted)
    todo = []
    for i, (p, c) in enumerate(fitted):
        if c:
            todo.append(i)
        else:
            results[i] = ItemScore(0.0, 0)
    todo.sort(key=lambda i: len(fitted[i][0]) + len(fitted[i][1]), reverse=True)
    k = 0
    while k < len(todo):
        width = len(fitted[todo[k]][0]) + len(fitted[todo[k]][1])  # longest first
        size = max(1, min(batch_size, max_batch_tokens // max(width, 1)))
        chunk = todo[k : k + size]
        for i, score in zip(chunk, _score_batch(lm, [fitted[i] for i in chunk])):
            results[i] = score
        k += len(chunk)
        if progress is not None:
            progress(len(chunk))
    return results  # type: ignore[return-value]


def score_texts(
    lm: LoadedModel,
    prompts: Sequence[str],
    continuations: Sequence[str],
    raw: bool | Sequence[bool] = True,
    batch_size: int = 16,
    progress: Any = None,
) -> list[ItemScore]:
    """Score text continuations given text prompts (see the module docstring for encoding)."""
    if len(prompts) != len(continuations):
        raise ValueError("prompts and continuations differ in length")
    raws = [raw] * len(prompts) if isinstance(raw, bool) else list(raw)
    pairs = [encode_pair(lm, p, c, r) for p, c, r in zip(prompts, continuations, raws)]
    return continuation_scores(lm, pairs, batch_size=batch_size, progress=progress)


_RAW_PROMPTS = {s.prompt for s in SCENARIOS if s.raw}


def prompt_is_raw(prompt: str, raw: Any = None) -> bool:
    """Whether a stored output's prompt was continued as raw text (no chat template). A stored
    flag wins; otherwise the built-in raw scenarios are raw and everything else was chatted,
    which is the runner's default."""
    if raw is not None and not (isinstance(raw, float) and math.isnan(raw)):
        return bool(raw)
    return prompt in _RAW_PROMPTS


def score_outputs(lm: LoadedModel, outputs: Any, batch_size: int = 16, progress: Any = None) -> dict[Any, ItemScore]:
    """Per-output scores for a frame with columns output_id, prompt, text (and optionally raw);
    `progress(n)` after each n outputs scored."""
    if len(outputs) == 0:
        return {}
    rows = outputs.drop_duplicates("output_id")
    raws = [prompt_is_raw(p, r) for p, r in zip(rows["prompt"], rows["raw"] if "raw" in rows else [None] * len(rows))]
    # Encoding needs only the tokenizer (CPU, this process); scoring runs where the model's device
    # is: in GPU tasks of at most PPL_TASK_ITEMS items on ZeroGPU, in-process elsewhere.
    pairs = [encode_pair(lm, p, c, r) for p, c, r in zip(rows["prompt"], rows["text"].fillna(""), raws)]
    # With a progress bar to feed, one batch per task, so it moves (a task's overhead is small next to a batch).
    task_items = batch_size if progress is not None else PPL_TASK_ITEMS
    scores = scores_on_device(lm, pairs, batch_size=batch_size, task_items=task_items, progress=progress)
    return dict(zip(rows["output_id"], scores))


class ScoreCache:
    """Per-output perplexity, computed once per model, dtype and output id (a stored output never
    changes). The dtype is part of the key: the same model in bf16 and fp32 gives different
    perplexities. Thread-safe; scoring holds `lm.lock`, so it never runs alongside a timed generation
    on the same device."""

    def __init__(self) -> None:
        self._scores: dict[tuple[str, str, int], ItemScore] = {}
        self._lock = threading.Lock()

    @staticmethod
    def key(lm: Any, output_id: Any) -> tuple[str, str, int]:
        return (lm.name, str(getattr(lm, "dtype", "")).replace("torch.", ""), int(output_id))

    def scores(
        self,
        lm: Any,
        outputs: Any,
        score: Callable[[Any, Any], dict[Any, ItemScore]] | None = None,
        progress: Any = None,
    ) -> dict[Any, ItemScore]:
        """Scores for a frame as `score_outputs` takes it (output_id, prompt, text, raw); only the
        outputs not seen before are scored, by `score` (default `score_outputs`, which calls
        `progress(n)` as it goes; a cached answer calls it never)."""
        with self._lock:
            todo = outputs[[self.key(lm, o) not in self._scores for o in outputs["output_id"]]]
        if len(todo):
            with lm.lock:
                fresh = score(lm, todo) if score is not None else score_outputs(lm, todo, progress=progress)
            with self._lock:
                self._scores.update({self.key(lm, k): v for k, v in fresh.items()})
        with self._lock:
            return {o: self._scores[self.key(lm, o)] for o in outputs["output_id"]}

    def forget(self) -> None:
        """Drop every score. Needed after a deletion: SQLite can give a deleted output's id to a new
        output, and the cache is keyed by output id."""
        with self._lock:
            self._scores.clear()

    def __len__(self) -> int:
        return len(self._scores)


SCORES = ScoreCache()  # this process's cache: the Results tab's perplexity column


# -- the GPU task: plain data in (a model key, token id lists), numbers out ------------------------

PPL_TASK_ITEMS = 64  # items per GPU task: each task stays short, so it fits a visitor's ZeroGPU quota


def _scores_duration(key: str, pairs: list, batch_size: int = 16) -> int:
    tokens = sum(len(p) + len(c) for p, c in pairs)
    return duration_s(max(1, tokens // 2000), 1)  # a forward over ~2k tokens costs about one decode step


@gpu_task(duration=_scores_duration)
def gpu_scores(key: str, pairs: list[tuple[list[int], list[int]]], batch_size: int = 16) -> list[tuple[float, int]]:
    """Score (prompt ids, continuation ids) pairs with the model named by `key`, inside one GPU
    task on ZeroGPU; (summed NLL, tokens) per pair."""
    lm = lookup(key)
    return [(float(s.nll), int(s.tokens)) for s in continuation_scores(lm, pairs, batch_size=batch_size)]


def scores_on_device(
    lm: LoadedModel,
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]],
    batch_size: int = 16,
    task_items: int = PPL_TASK_ITEMS,
    progress: Any = None,
) -> list[ItemScore]:
    """`continuation_scores` through the GPU path, chunked into tasks of `task_items` pairs;
    `progress(n)` after each task of n pairs."""
    plain = [([int(t) for t in p], [int(t) for t in c]) for p, c in pairs]
    out: list[ItemScore] = []
    for k in range(0, len(plain), max(1, task_items)):
        chunk = plain[k : k + task_items]
        out.extend(ItemScore(nll, n) for nll, n in gpu_scores(lm.key, chunk, batch_size))
        if progress is not None:
            progress(len(chunk))
    return out


@torch.inference_mode()
def loop_scores(lm: LoadedModel, pairs: Sequence[tuple[Sequence[int], Sequence[int]]]) -> list[ItemScore]:
    """The plain one-at-a-time loop, as usually written: one forward per item through the model's
    own loss (`labels`, prompt labels -100). The reference that `continuation_scores` is checked
    and timed against; same fitting and BOS handling."""
    out = []
    for p, c in pairs:
        p, c = _fit(lm, list(p) or _start_ids(lm.tokenizer), list(c))
        if not c:
            out.append(ItemScore(0.0, 0))
            continue
        ids = torch.tensor([p + c], device=lm.device)
        labels = ids.clone()
        labels[0, : len(p)] = -100
        loss = lm.model(input_ids=ids, labels=labels).loss  # mean over the len(c) scored tokens
        out.append(ItemScore(float(loss.double()) * len(c), len(c)))
    return out
