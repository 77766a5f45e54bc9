"""The samplers local-model users ask for, as logits processors: top-nσ, XTC, DRY and Mirostat v2.

Written like transformers' `generation/logits_process.py` and like `decoders/processors.py`: one class
per transform, the formula in its docstring, an example through `model.generate`, no Python loop over
rows or the vocabulary, the scores' device and dtype kept (the arithmetic that decides what is cut is
done in float32). Their reference is llama.cpp's sampler of the same name (`src/llama-sampler.cpp`);
`tests/data/sampler_refs/make_refs.py` records that implementation's output on given logits with
`llama-cpp-python`, and `tests/test_samplers_reference.py` checks these classes against the record.

ε-sampling, η-sampling and top-H are transformers' own (`EpsilonLogitsWarper`, `EtaLogitsWarper`,
`TopHLogitsWarper`); the decoders use them through `generate`'s keywords.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import torch
from transformers import LogitsProcessor

__all__ = [
    "DRYLogitsProcessor",
    "MirostatV2LogitsWarper",
    "TopNSigmaLogitsWarper",
    "XTCLogitsWarper",
]

LN2 = math.log(2.0)
# log(FLT_MAX): llama.cpp caps DRY's exponent so that base**exponent stays finite in float32.
FLOAT_MAX_LOG = 88.7228391


class TopNSigmaLogitsWarper(LogitsProcessor):
    r"""Top-nσ (Tang et al. 2024, "Top-nσ: Not All Logits Are You Need"): keep the tokens whose logit is
    within n standard deviations of the largest.

        μ, σ      = mean and population std (÷ count) of the finite logits of the row
        keep(w)   = logit(w) ≥ max logit − n·σ
        scores'   = scores where keep, else `filter_value`

    The cut is on logits, not probabilities, so it does not depend on the temperature: dividing every
    logit by T divides max, σ and the gap alike. Masked tokens (−inf) are left out of μ and σ, as in
    llama.cpp; with all logits equal σ = 0 and every token stays; n ≤ 0 turns the cut off.

    Args:
        n (`float`):
            How many standard deviations below the top logit a token may be; ≤ 0 keeps every token.
        filter_value (`float`, *optional*, defaults to -inf):
            What the scores of the dropped tokens become.

    Examples:
        >>> import torch
        >>> from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessorList
        >>> _ = torch.manual_seed(0)
        >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        ...                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=None, pad_token_id=0)
        >>> model = LlamaForCausalLM(config).eval()
        >>> prompt = torch.tensor([[1, 5, 9]])

        n = 0.0001 keeps only the top logit, so sampling through it is greedy decoding:

        >>> sigma = TopNSigmaLogitsWarper(n=1e-4)
        >>> sampled = model.generate(prompt, do_sample=True, top_k=0, max_new_tokens=6,
        ...                          logits_processor=LogitsProcessorList([sigma]))
        >>> torch.equal(sampled, model.generate(prompt, do_sample=False, max_new_tokens=6))
        True

        By hand (logits 4, 2, 0, −2: μ = 1, σ = √5 ≈ 2.236; with n = 1 the cut is 4 − 2.236 = 1.764):

        >>> TopNSigmaLogitsWarper(n=1.0)(None, torch.tensor([[4.0, 2.0, 0.0, -2.0]]))
        tensor([[4., 2., -inf, -inf]])
        >>> TopNSigmaLogitsWarper(n=1.0)(None, torch.tensor([[4.0, 2.0, 0.0, -2.0]]).bfloat16()).dtype
        torch.bfloat16
    """

    def __init__(self, n: float, filter_value: float = -float("inf")):
        self.n = float(n)
        self.filter_value = filter_value

    def stage_label(self) -> str:
        return f"top-nσ {self.n:g}"

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.Tensor:
        if self.n <= 0.0:
            return scores
        x = scores.float()
        finite = torch.isfinite(x)
        count = finite.sum(dim=-1, keepdim=True).clamp(min=1)
        mean = torch.where(finite, x, 0.0).sum(dim=-1, keepdim=True) / count
        std = (torch.where(finite, x - mean, 0.0).square().sum(dim=-1, keepdim=True) / count).sqrt()
        top = torch.where(finite, x, -float("inf")).amax(dim=-1, keepdim=True)
        return scores.masked_fill(x < top - self.n * std, self.filter_value)


class XTCLogitsWarper(LogitsProcessor):
    r"""XTC, "exclude top choices" (p-e-w, text-generation-webui #6335; llama.cpp `xtc`): with probability
    `probability`, remove every token at least `threshold` likely except the least likely of them.

        A        = {w : p(w) ≥ threshold},  p = softmax(scores)
        if |A| ≥ 2 and u ≤ probability (u ~ U(0, 1), drawn per row):
            scores'(w) = filter_value for w ∈ A, w ≠ argmin_{A} p
        else scores' = scores

    Where several tokens are above the threshold the model has more than one good continuation; taking
    away the likeliest ones steers it off its most predictable path while the least likely "good"
    choice keeps the text coherent. With one token above the threshold nothing changes. A threshold
    over 0.5 can never have two tokens above it and turns XTC off, as does probability 0. The coin is
    drawn with torch's generator on the scores' device, so a seeded run repeats; probability 1 needs
    no coin.

    Args:
        threshold (`float`):
            The probability a token needs to count as a "top choice"; > 0.5 turns XTC off.
        probability (`float`, *optional*, defaults to 1.0):
            How often (per row and step) the top choices are removed; ≤ 0 turns XTC off.
        filter_value (`float`, *optional*, defaults to -inf):
            What the scores of the removed tokens become.

    Examples:
        >>> import torch
        >>> from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessorList
        >>> _ = torch.manual_seed(0)
        >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        ...                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=None, pad_token_id=0)
        >>> model = LlamaForCausalLM(config).eval()
        >>> prompt = torch.tensor([[1, 5, 9]])

        A threshold over 0.5 never removes anything: the same tokens as plain sampling, same seed:

        >>> off = XTCLogitsWarper(threshold=0.6)
        >>> _ = torch.manual_seed(1)
        >>> a = model.generate(prompt, do_sample=True, top_k=0, max_new_tokens=6,
        ...                    logits_processor=LogitsProcessorList([off]))
        >>> _ = torch.manual_seed(1)
        >>> torch.equal(a, model.generate(prompt, do_sample=True, top_k=0, max_new_tokens=6))
        True

        By hand (probabilities .5, .3, .15, .05; threshold .2: tokens 0 and 1 are top choices, 1 stays):

        >>> scores = torch.tensor([[0.5, 0.3, 0.15, 0.05]]).log()
        >>> XTCLogitsWarper(threshold=0.2)(None, scores).exp()
        tensor([[0.0000, 0.3000, 0.1500, 0.0500]])
    """

    def __init__(self, threshold: float, probability: float = 1.0, filter_value: float = -float("inf")):
        self.threshold = float(threshold)
        self.probability = float(probability)
        self.filter_value = filter_value

    def stage_label(self) -> str:
        return f"XTC {self.threshold:g}" + (f" (p={self.probability:g})" if self.probability < 1.0 else "")

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.Tensor:
        if self.probability <= 0.0 or self.threshold > 0.5:
            return scores
        probs = torch.softmax(scores.float(), dim=-1)
        top = probs >= self.threshold
        apply = top.sum(dim=-1, keepdim=True) >= 2
        if self.probability < 1.0:
            coin = torch.rand(scores.shape[0], 1, device=scores.device)
            apply = apply & (coin <= self.probability)
        least = torch.where(top, probs, 2.0).argmin(dim=-1, keepdim=True)
        remove = top.scatter(1, least, False) & apply
        return scores.masked_fill(remove, self.filter_value)


class DRYLogitsProcessor(LogitsProcessor):
    r"""DRY, "don't repeat yourself" (p-e-w, text-generation-webui #5677; koboldcpp; llama.cpp `dry`):
    penalise a token by how long a stretch of the context it would repeat.

        for each earlier position j:  n_j = length of the longest common suffix of x[..j] and the whole
                                            context x (at most the distance to the last sequence breaker)
        len(w)    = max { n_j : x[j+1] = w, n_j ≥ allowed_length }
        scores'(w) = scores(w) − multiplier · base^(len(w) − allowed_length)      (tokens with a len(w))

    The context is the last `penalty_last_n` tokens of `input_ids` (−1: all of them, prompt included, as
    llama.cpp's server does). A sequence breaker (a token whose text contains "\n", ":", '"' or "*" by
    default) ends every match: matches are measured only after the last breaker in the context, and
    breaker tokens themselves are never penalised. The exponent is capped at log(FLT_MAX)/log(base), as in
    llama.cpp, so a long repeat gives a large finite penalty rather than inf.

    One step compares the context with itself shifted by every k at once, one more token per round
    while any match is still alive (at most the capped match length): no Python loop over positions
    or tokens. llama.cpp uses the Z-algorithm, which gives the same lengths.

    Args:
        multiplier (`float`):
            Penalty size; 0 turns DRY off.
        base (`float`):
            Growth per repeated token beyond `allowed_length`; ≥ 1 (below 1 turns DRY off, as in llama.cpp).
        allowed_length (`int`):
            Repeats up to this many tokens are not penalised.
        penalty_last_n (`int`, *optional*, defaults to -1):
            How many of the last tokens are searched; −1 = the whole sequence, 0 turns DRY off.
        breaker_ids (`Iterable[int]`, *optional*):
            Token ids that are sequence breakers (`breaker_token_ids(tokenizer)` finds the default ones).

    Examples:
        >>> import torch
        >>> from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessorList
        >>> _ = torch.manual_seed(0)
        >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        ...                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=None, pad_token_id=0)
        >>> model = LlamaForCausalLM(config).eval()
        >>> prompt = torch.tensor([[1, 5, 9]])

        With a huge multiplier greedy decoding never continues a repeat of 2 tokens or more:

        >>> dry = DRYLogitsProcessor(multiplier=1e4, base=1.75, allowed_length=2)
        >>> out = model.generate(prompt, do_sample=False, max_new_tokens=16,
        ...                      logits_processor=LogitsProcessorList([dry]))[0].tolist()
        >>> any(out[i - 2:i + 1] == out[j - 2:j + 1] for i in range(2, len(out)) for j in range(2, i))
        False

        By hand (context a b c x a b; "c" would make "a b c" repeat: len = 2, penalty 0.8·1.75⁰):

        >>> DRYLogitsProcessor(0.8, 1.75, 2)(torch.tensor([[0, 1, 2, 3, 0, 1]]), torch.zeros(1, 5))
        tensor([[ 0.0000,  0.0000, -0.8000,  0.0000,  0.0000]])
    """

    def __init__(
        self,
        multiplier: float,
        base: float,
        allowed_length: int,
        penalty_last_n: int = -1,
        breaker_ids: Iterable[int] = (),
    ):
        self.multiplier, self.base = float(multiplier), float(base)
        self.allowed_length, self.penalty_last_n = int(allowed_length), int(penalty_last_n)
        self.breakers = torch.tensor(sorted({int(i) for i in breaker_ids}), dtype=torch.long)
        self.max_exponent = int(FLOAT_MAX_LOG / math.log(self.base)) if self.base > 1.000001 else 0
        self._on: dict[torch.device, torch.Tensor] = {}

    def stage_label(self) -> str:
        return f"DRY {self.multiplier:g}×{self.base:g}^(n−{self.allowed_length})"

    def enabled(self) -> bool:
        return self.multiplier != 0.0 and self.base >= 1.0 and self.penalty_last_n != 0

    def breaker_ids_on(self, device: torch.device) -> torch.Tensor:
        table = self._on.get(device)
        if table is None:
            table = self._on[device] = self.breakers.to(device)
        return table

    def match_lengths(self, context: torch.Tensor) -> torch.Tensor:
        """(batch, N−1): for each position j < N−1, the longest common suffix of context[..j] and the
        whole context, capped at each row's distance to its last breaker (and at the length past which
        the penalty no longer grows)."""
        batch, n = context.shape
        breakers = self.breaker_ids_on(context.device)
        is_breaker = torch.isin(context, breakers) if breakers.numel() else torch.zeros_like(context, dtype=torch.bool)
        back = is_breaker.flip(1)  # back[:, d]: the token d places from the end is a breaker
        limit = torch.where(back.any(dim=1), back.int().argmax(dim=1), torch.full((batch,), n, device=context.device))
        cap = int(limit.max())
        if self.max_exponent > 0:
            cap = min(cap, self.allowed_length + self.max_exponent)
        if cap < self.allowed_length:
            return torch.zeros(batch, n - 1, dtype=torch.long, device=context.device)
        rev = context.flip(1)  # rev[:, d]: d places from the end
        k = torch.arange(1, n, device=context.device)  # shift: the suffix ending k places earlier
        run = torch.zeros(batch, n - 1, dtype=torch.long, device=context.device)
        alive = torch.ones(batch, n - 1, dtype=torch.bool, device=context.device)
        # Extend every match one token at a time while any is still alive: text rarely repeats for
        # long, so this stops after a few (batch × N) comparisons instead of building (N × cap).
        for d in range(min(cap, n - 1)):
            at = k + d
            alive &= (rev[:, at.clamp(max=n - 1)] == rev[:, d : d + 1]) & (at < n)
            if not bool(alive.any()):
                break
            run += alive
        run = torch.minimum(run, limit[:, None])
        return run.flip(1)  # index j = N−1−k: the match that ends at position j

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.Tensor:
        if not self.enabled():
            return scores
        window = input_ids.shape[1] if self.penalty_last_n < 0 else min(self.penalty_last_n, input_ids.shape[1])
        if window <= self.allowed_length:
            return scores
        context = input_ids[:, -window:].to(scores.device)
        lengths = self.match_lengths(context)  # (batch, window−1), aligned with the token that follows
        follows = context[:, 1:]
        counted = torch.where(lengths >= self.allowed_length, lengths, -1)
        longest = torch.full(scores.shape, -1, dtype=torch.long, device=scores.device)
        longest.scatter_reduce_(1, follows, counted, reduce="amax")
        hit = longest >= 0
        breakers = self.breaker_ids_on(scores.device)
        if breakers.numel():
            hit[:, breakers[breakers < scores.shape[1]]] = False
        exponent = (longest - self.allowed_length).clamp(min=0).float()
        if self.max_exponent > 0:
            exponent = exponent.clamp(max=float(self.max_exponent))
        penalty = self.multiplier * torch.pow(torch.tensor(self.base, device=scores.device), exponent)
        return (scores.float() - torch.where(hit, penalty, 0.0)).to(scores.dtype)


class MirostatV2LogitsWarper(LogitsProcessor):
    r"""Mirostat 2.0 (Basu et al. 2021, "Mirostat: a neural text decoding algorithm that directly controls
    perplexity"; llama.cpp `mirostat-v2`): truncate to the tokens whose surprise is at most μ, and steer
    μ so that the surprise of the sampled tokens averages τ.

        μ₀         = 2τ
        keep(w)    = −log₂ p(w) ≤ μ_t            (at least the most likely token),   p = softmax(scores)
        q          = p renormalised over the kept tokens (what `generate` then samples from)
        μ_{t+1}    = μ_t − η · (−log₂ q(x_t) − τ)      x_t = the token that was sampled

    μ is per row. The update needs the token that was sampled, which `generate` appends to `input_ids`
    before the next call: the processor keeps the last step's log q and reads x_t there. It must be the
    last processor (its truncation is what is sampled from) and it is new for each generation (μ starts
    at 2τ); a call whose `input_ids` did not grow by one token starts again from 2τ.

    Args:
        tau (`float`):
            Target surprise τ in bits per token (llama.cpp's default 5.0).
        eta (`float`):
            Learning rate η of the μ update (llama.cpp's default 0.1).
        filter_value (`float`, *optional*, defaults to -inf):
            What the scores of the truncated tokens become.

    Examples:
        >>> import torch
        >>> from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessorList
        >>> _ = torch.manual_seed(0)
        >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        ...                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=None, pad_token_id=0)
        >>> model = LlamaForCausalLM(config).eval()
        >>> prompt = torch.tensor([[1, 5, 9]])

        τ = 0 and η = 0 keep μ at 0 bits: only tokens with p = 1 could pass, so the most likely one is
        always the only one left, and sampling is greedy decoding:

        >>> miro = MirostatV2LogitsWarper(tau=0.0, eta=0.0)
        >>> sampled = model.generate(prompt, do_sample=True, top_k=0, max_new_tokens=6,
        ...                          logits_processor=LogitsProcessorList([miro]))
        >>> torch.equal(sampled, model.generate(prompt, do_sample=False, max_new_tokens=6))
        True

        By hand (τ = 1.5: μ₀ = 3 bits keeps p ≥ 1/8; token 1 (q = .4/.9) is sampled, surprise 1.17 bits,
        so μ₁ = 3 − 0.1·(1.17 − 1.5) = 3.033):

        >>> miro = MirostatV2LogitsWarper(tau=1.5, eta=0.1)
        >>> miro(torch.tensor([[7]]), torch.tensor([[0.5, 0.4, 0.05, 0.05]]).log()).exp()
        tensor([[0.5000, 0.4000, 0.0000, 0.0000]])
        >>> _ = miro(torch.tensor([[7, 1]]), torch.tensor([[0.5, 0.4, 0.05, 0.05]]).log())
        >>> round(float(miro.mu[0]), 3)
        3.033
    """

    def __init__(self, tau: float, eta: float, filter_value: float = -float("inf")):
        self.tau, self.eta = float(tau), float(eta)
        self.filter_value = filter_value
        self.mu: torch.Tensor | None = None
        self.last_logq: torch.Tensor | None = None  # (batch, vocab): log q of the previous step
        self.length = -1

    def stage_label(self) -> str:
        return f"mirostat-v2 τ={self.tau:g} η={self.eta:g}"

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.Tensor:
        rows = scores.shape[0]
        if self.last_logq is not None and self.mu is not None and input_ids.shape[1] == self.length + 1:
            chosen = input_ids[:, -1:].to(scores.device)
            surprise = -self.last_logq.gather(1, chosen).squeeze(1) / LN2
            self.mu = self.mu - self.eta * (surprise - self.tau)
        else:
            self.mu = torch.full((rows,), 2.0 * self.tau, dtype=torch.float32, device=scores.device)
        self.length = input_ids.shape[1]
        logp = torch.log_softmax(scores.float(), dim=-1)
        keep = -logp / LN2 <= self.mu[:, None]
        keep.scatter_(1, logp.argmax(dim=-1, keepdim=True), True)
        out = scores.masked_fill(~keep, self.filter_value)
        self.last_logq = torch.log_softmax(out.float(), dim=-1)
        return out


def breaker_token_ids(tokenizer, breakers: Iterable[str]) -> list[int]:
    """Ids of the tokens whose text contains any of `breakers` (DRY's single-token sequence breakers,
    found as llama.cpp finds them: in the token's bytes, special tokens included)."""
    from .token_lengths import piece_bytes  # here: only DRY's plan needs the byte table

    wanted = [b.encode("utf-8") for b in breakers if b]
    if not wanted:
        return []
    pieces = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
    return [i for i, p in enumerate(pieces) if p is not None and any(w in piece_bytes(p) for w in wanted)]
