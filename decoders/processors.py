"""Decoding Arena's logits processors, all in one module (as transformers' `generation/logits_process.py`).

transformers' own processors are used wherever one exists (temperature, top-k, top-p, min-p,
typical-p, repetition penalty, n-gram blocking); these are the ones it does not have. Each is a
`transformers.LogitsProcessor`: `generate` calls it once per step with `input_ids` (batch, length
so far) and `scores` (batch, vocabulary) and goes on with what it returns. All of them

* work on the whole batch at once, with no Python loop over rows or tokens;
* keep the dtype of the scores they get (bfloat16 in, bfloat16 out);
* run *before* `generate`'s own temperature, top-k and top-p warpers, because `generate` puts the
  processors it is given ahead of those. The schedules, which apply a temperature themselves, are
  therefore used with `generate(temperature=1.0)`, so that the temperature is applied once.

t, where it appears, is the number of tokens generated so far (0 while choosing the first new
token): `input_ids.shape[1] - prompt_length`.

The examples build a tiny randomly initialised Llama in code (nothing is downloaded) and run it
through `model.generate`; they run as doctests (`python -m pytest --doctest-modules decoders`).
"""

from __future__ import annotations

import torch
from transformers import LogitsProcessor, TopPLogitsWarper

__all__ = [
    "DualThresholdLogitsWarper",
    "LengthAwareTemperatureLogitsWarper",
    "RecentRepetitionPenaltyLogitsProcessor",
    "TemperatureDecayLogitsWarper",
    "TiltedLogitsProcessor",
    "WarmupTemperatureLogitsWarper",
]


class TiltedLogitsProcessor(LogitsProcessor):
    r"""Frequency tilt as a pure logit bias: adds −λ·T·S(w) to every score.

        bias(w)    = −λ · T · S(w)
        scores'(w) = scores(w) + bias(w)

    S(w) is a fixed per-token prior score, larger for tokens the prior considers frequent (e.g. the
    centred log word frequency of `decoders.priors`), so a positive λ moves probability away from
    frequent tokens: the anti-language-model term of MMI decoding (Li et al. 2016).

    The processor does not divide by T. It runs before transformers' stock
    `TemperatureLogitsWarper(T)` (`generate(temperature=T)` applies it after the processors it is
    given), and the two together give

        (logits − λ·T·S) / T  =  logits/T − λ·S,

    the tilted distribution, on which top-k and top-p then act. T is in the bias so that λ keeps one
    meaning (a penalty in units of the tempered logits) at every temperature. With λ = 0 the scores
    are returned untouched, so the chain is `TemperatureLogitsWarper(T)` alone.

    Because the bias depends on neither the step nor the context, it is what an OpenAI-compatible
    server accepts as `logit_bias` ({token id: bias}, added to the logits before the server divides
    by the request's temperature, as vLLM does): `{i: b for i, b in enumerate(tilt.bias.tolist())
    if b}` sent with `temperature=T`. OpenAI's own API caps `logit_bias` at 300 entries within
    ±100, too few for a dense prior such as wordfreq; `serving/vllm_arena.py` applies the same
    bias inside a vLLM server instead.

    Args:
        temperature (`float`):
            The sampling temperature T that runs after this processor (`generate(temperature=T)`
            or a `TemperatureLogitsWarper(T)` placed next); must be > 0.
        alpha (`float`):
            The tilt strength λ (`alpha` in TS-Tilted's settings). 0 turns the tilt off.
        prior (`torch.Tensor`):
            S, one score per logit, shape `(vocabulary,)`, e.g. from `decoders.priors.build_prior`.
            The bias is kept in float32 and cast to the scores' dtype and device on first use.

    Examples:
        >>> import torch
        >>> from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessorList, TemperatureLogitsWarper
        >>> _ = torch.manual_seed(0)
        >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        ...                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=None, pad_token_id=0)
        >>> model = LlamaForCausalLM(config).eval()
        >>> prompt = torch.tensor([[1, 5, 9]])

        Call tokens 0–15 "frequent" (S = 1) and tilt hard away from them; `generate` applies T = 0.8
        after the bias:

        >>> prior = torch.zeros(32)
        >>> prior[:16] = 1.0
        >>> tilt = TiltedLogitsProcessor(temperature=0.8, alpha=50.0, prior=prior)
        >>> out = model.generate(prompt, do_sample=True, temperature=0.8, max_new_tokens=8,
        ...                      logits_processor=LogitsProcessorList([tilt]))
        >>> bool((out[0, 3:] >= 16).all())
        True

        The bias followed by the stock temperature warper is logits/T − λS, and the dtype is kept:

        >>> tilt = TiltedLogitsProcessor(temperature=0.8, alpha=0.3, prior=prior)
        >>> scores = torch.randn(1, 32)
        >>> torch.allclose(TemperatureLogitsWarper(0.8)(prompt, tilt(prompt, scores)), scores / 0.8 - 0.3 * prior)
        True
        >>> tilt(prompt, scores.bfloat16()).dtype
        torch.bfloat16
    """

    def __init__(self, temperature: float, alpha: float, prior: torch.Tensor):
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        self.temperature = float(temperature)
        self.alpha = float(alpha)
        self.bias = (-self.alpha * self.temperature) * prior.float()
        self._cast: dict[tuple[torch.dtype, torch.device], torch.Tensor] = {}  # one copy per dtype/device, not per step

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.Tensor:
        if self.alpha == 0.0:
            return scores
        key = (scores.dtype, scores.device)
        bias = self._cast.get(key)
        if bias is None:
            bias = self._cast[key] = self.bias.to(device=scores.device, dtype=scores.dtype)
        return scores + bias


class RecentRepetitionPenaltyLogitsProcessor(LogitsProcessor):
    r"""Subtract a fixed penalty from tokens repeated too often in the recent generated window
    (article 000, §5.1, the adaptive tilt).

        c(w)       = #{ occurrences of w among the last `window` generated tokens }
        scores'(w) = scores(w) − penalty · [c(w) > window // 2]

    The article's `AdaptiveTiltedSampler` counts the last `history_window` generated tokens with
    `bincount` and subtracts `base_alpha·5` from every token seen more than `history_window // 2`
    times. Only tokens at positions ≥ `prompt_length` count, so a prompt that repeats a word does
    not penalise it. Counting is one `scatter_add_` over a (batch, window) slice. TS-Tilted-Adaptive
    runs it after the tilt and the temperature, so the penalty is subtracted from logits/T − λS,
    as in the article.

    Args:
        window (`int`):
            How many of the most recent generated tokens are counted; ≥ 1.
        penalty (`float`):
            What is subtracted from the score of a token seen more than `window // 2` times.
        prompt_length (`int`, *optional*, defaults to 0):
            Length of the prompt in `input_ids`; tokens before it are never counted.

    Examples:
        >>> import torch
        >>> from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessorList
        >>> _ = torch.manual_seed(0)
        >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        ...                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=None, pad_token_id=0)
        >>> model = LlamaForCausalLM(config).eval()
        >>> prompt = torch.tensor([[1, 5, 9]])

        Greedy decoding with the penalty never picks a token that already fills more than half of the
        last 4 generated tokens:

        >>> repeat = RecentRepetitionPenaltyLogitsProcessor(window=4, penalty=100.0, prompt_length=3)
        >>> out = model.generate(prompt, do_sample=False, max_new_tokens=12, logits_processor=LogitsProcessorList([repeat]))
        >>> new = out[0, 3:].tolist()
        >>> all(new[max(0, j - 4):j].count(new[j]) <= 4 // 2 for j in range(len(new)))
        True

        By hand (window 5, penalty 0.5, no prompt; token 1 appears 3 > 2 times):

        >>> p = RecentRepetitionPenaltyLogitsProcessor(window=5, penalty=0.5, prompt_length=0)
        >>> p(torch.tensor([[1, 1, 2, 1, 3]]), torch.zeros(1, 5))
        tensor([[ 0.0000, -0.5000,  0.0000,  0.0000,  0.0000]])
    """

    def __init__(self, window: int, penalty: float, prompt_length: int = 0):
        if window < 1:
            raise ValueError(f"window must be ≥ 1, got {window}")
        self.window = int(window)
        self.penalty = float(penalty)
        self.prompt_length = int(prompt_length)
        self.limit = self.window // 2  # "more than half the window", the article's integer division

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.Tensor:
        start = max(self.prompt_length, input_ids.shape[1] - self.window)
        recent = input_ids[:, start:]
        if recent.shape[1] <= self.limit or self.penalty == 0.0:
            return scores  # too few generated tokens for anything to pass the limit
        counts = torch.zeros(scores.shape, dtype=torch.int32, device=scores.device)
        counts.scatter_add_(
            1, recent.to(scores.device), torch.ones_like(recent, dtype=torch.int32, device=scores.device)
        )
        return scores - self.penalty * (counts > self.limit).to(scores.dtype)


class TemperatureDecayLogitsWarper(LogitsProcessor):
    r"""Temperature decaying over the answer (article 003, §4.4):

        T(t)      = max(T_min, T_max · (1 − t/L)^γ),   L = max_new_tokens
        scores'   = scores / T(t)

    γ > 1 decays fast early and flattens later; the article suggests γ ≈ 1.5 (math 1.2, poetry 1.8).
    T_min > 0 keeps the division finite at t = L. (The article's worked example — L=256,
    T_max=0.85 giving T=0.62 at t=128 — does not follow from its own formula, which gives
    0.85·0.5^1.5 ≈ 0.30; this class follows the formula.) Use it with `generate(temperature=1.0)`.

    Args:
        t_max (`float`):
            T at the first generated token; > 0.
        gamma (`float`):
            The decay exponent γ; 0 keeps T = T_max throughout.
        max_new_tokens (`int`):
            L, the length over which T decays; ≥ 1.
        prompt_length (`int`):
            Length of the prompt in `input_ids`, so that t counts generated tokens only.
        t_min (`float`, *optional*, defaults to 0.05):
            The floor under T; > 0.

    Examples:
        >>> import torch
        >>> from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessorList
        >>> _ = torch.manual_seed(0)
        >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        ...                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=None, pad_token_id=0)
        >>> model = LlamaForCausalLM(config).eval()
        >>> prompt = torch.tensor([[1, 5, 9]])

        With γ = 0 the schedule is the constant T_max, so it samples what `generate(temperature=T_max)`
        samples with the same seed:

        >>> flat = TemperatureDecayLogitsWarper(t_max=0.7, gamma=0.0, max_new_tokens=6, prompt_length=3)
        >>> _ = torch.manual_seed(1)
        >>> a = model.generate(prompt, do_sample=True, temperature=1.0, max_new_tokens=6,
        ...                    logits_processor=LogitsProcessorList([flat]))
        >>> _ = torch.manual_seed(1)
        >>> torch.equal(a, model.generate(prompt, do_sample=True, temperature=0.7, max_new_tokens=6))
        True

        By hand (T_max=0.8, γ=1, L=4, after 2 generated tokens: T = 0.8·0.5 = 0.4):

        >>> w = TemperatureDecayLogitsWarper(0.8, 1.0, max_new_tokens=4, prompt_length=1)
        >>> w(torch.tensor([[5, 6, 7]]), torch.tensor([[0.4, -0.8]]))
        tensor([[ 1., -2.]])
    """

    def __init__(self, t_max: float, gamma: float, max_new_tokens: int, prompt_length: int, t_min: float = 0.05):
        if not t_max > 0 or not t_min > 0:
            raise ValueError(f"temperatures must be > 0, got t_max={t_max}, t_min={t_min}")
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be ≥ 1, got {max_new_tokens}")
        self.t_max, self.gamma, self.t_min = float(t_max), float(gamma), float(t_min)
        self.length, self.prompt_length = int(max_new_tokens), int(prompt_length)

    def temperature(self, t: int) -> float:
        progress = min(max(t, 0), self.length) / self.length
        return max(self.t_min, self.t_max * (1.0 - progress) ** self.gamma)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.Tensor:
        return scores / self.temperature(input_ids.shape[1] - self.prompt_length)


class WarmupTemperatureLogitsWarper(LogitsProcessor):
    r"""Sampling warm-up (article 003, §2.3): another temperature for the first k generated tokens.

        T(t)    = T_warm  if t < k  else  T
        scores' = scores / T(t)

    The article: "first 3–5 tokens at T≈0.9, then T≈0.7". Use it with `generate(temperature=1.0)`.

    Args:
        warm_temperature (`float`):
            T_warm, for the first `warm_tokens` generated tokens; > 0.
        warm_tokens (`int`):
            k; 0 means no warm-up.
        temperature (`float`):
            T, for every token after the warm-up; > 0.
        prompt_length (`int`):
            Length of the prompt in `input_ids`, so that a long prompt does not count as warm-up.

    Examples:
        >>> import torch
        >>> from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessorList
        >>> _ = torch.manual_seed(0)
        >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        ...                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=None, pad_token_id=0)
        >>> model = LlamaForCausalLM(config).eval()
        >>> prompt = torch.tensor([[1, 5, 9]])

        The first 3 new tokens are what plain sampling at T_warm draws with the same seed:

        >>> warm = WarmupTemperatureLogitsWarper(warm_temperature=1.5, warm_tokens=3, temperature=0.7, prompt_length=3)
        >>> _ = torch.manual_seed(1)
        >>> a = model.generate(prompt, do_sample=True, temperature=1.0, max_new_tokens=8,
        ...                    logits_processor=LogitsProcessorList([warm]))
        >>> _ = torch.manual_seed(1)
        >>> torch.equal(a[:, :6], model.generate(prompt, do_sample=True, temperature=1.5, max_new_tokens=3))
        True

        By hand (k=1: the first token at T_warm=0.5, the next at T=2):

        >>> w = WarmupTemperatureLogitsWarper(warm_temperature=0.5, warm_tokens=1, temperature=2.0, prompt_length=2)
        >>> w(torch.tensor([[1, 2]]), torch.tensor([[1.0]])), w(torch.tensor([[1, 2, 3]]), torch.tensor([[1.0]]))
        (tensor([[2.]]), tensor([[0.5000]]))
    """

    def __init__(self, warm_temperature: float, warm_tokens: int, temperature: float, prompt_length: int):
        if not warm_temperature > 0 or not temperature > 0:
            raise ValueError("temperatures must be > 0")
        self.warm_temperature, self.temperature_after = float(warm_temperature), float(temperature)
        self.warm_tokens, self.prompt_length = int(warm_tokens), int(prompt_length)

    def temperature(self, t: int) -> float:
        return self.warm_temperature if t < self.warm_tokens else self.temperature_after

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.Tensor:
        return scores / self.temperature(input_ids.shape[1] - self.prompt_length)


class DualThresholdLogitsWarper(LogitsProcessor):
    r"""Dual threshold (article 003, §2.2): top-p, then keep only the tokens whose score exceeds
    mean + std of the nucleus.

        N    = top-p nucleus of softmax(scores)           (transformers' `TopPLogitsWarper`)
        μ, σ = mean and population std (÷|N|) of {scores(w) : w ∈ N}
        keep = {w ∈ N : scores(w) > μ + σ}  ∪  {argmax scores}

    Everything else becomes `filter_value`. The argmax is always kept: with one token in the
    nucleus σ = 0 and the strict `>` would otherwise empty the set. The cut is computed with masked
    sums, one pass per row. The nucleus and μ, σ are computed in float32 whatever the input dtype
    (a bfloat16 sum over a large nucleus would move the cut); the returned scores keep the input's
    dtype. Apply the temperature *before* this warper: the nucleus depends on T, the μ+σ cut does
    not (it is invariant to scaling).

    Args:
        top_p (`float`, *optional*, defaults to 0.95):
            The nucleus mass of the first threshold.
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

        A nucleus of one token leaves σ = 0 and only the argmax, so sampling through the warper is
        greedy decoding:

        >>> dual = DualThresholdLogitsWarper(top_p=0.01)
        >>> sampled = model.generate(prompt, do_sample=True, top_k=0, max_new_tokens=6,
        ...                          logits_processor=LogitsProcessorList([dual]))
        >>> torch.equal(sampled, model.generate(prompt, do_sample=False, max_new_tokens=6))
        True

        By hand (scores 4, 3, 2, 1, 0; the nucleus at p=0.95 is {4, 3, 2}: probabilities .636, .234,
        .086 sum to .957; μ = 3, σ = √(2/3) ≈ 0.816, so only 4 > 3.816 survives):

        >>> DualThresholdLogitsWarper(top_p=0.95)(None, torch.tensor([[4.0, 3.0, 2.0, 1.0, 0.0]]))
        tensor([[4., -inf, -inf, -inf, -inf]])
    """

    def __init__(self, top_p: float = 0.95, filter_value: float = -float("inf")):
        self.top_p = float(top_p)
        self.filter_value = filter_value
        self.nucleus = TopPLogitsWarper(top_p=self.top_p, filter_value=-float("inf"))

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.Tensor:
        x = scores.float()
        in_nucleus = torch.isfinite(self.nucleus(input_ids, x)) & torch.isfinite(x)
        n = in_nucleus.sum(dim=-1, keepdim=True).clamp(min=1)
        mean = torch.where(in_nucleus, x, 0.0).sum(dim=-1, keepdim=True) / n
        var = (torch.where(in_nucleus, x - mean, 0.0) ** 2).sum(dim=-1, keepdim=True) / n
        keep = in_nucleus & (x > mean + var.sqrt())
        keep.scatter_(1, x.argmax(dim=-1, keepdim=True), True)
        return scores.masked_fill(~keep, self.filter_value)


class LengthAwareTemperatureLogitsWarper(LogitsProcessor):
    r"""Length-aware sampling (article 003, §5.3): the temperature falls as each row's output nears
    its length limit.

        ℓ_r       = Σ_{j ≥ prompt_length} len(input_ids[r, j])       (the output's length so far)
        T_r       = T_end + (T_start − T_end) · (1 − min(1, ℓ_r / L))^γ
        scores'_r = scores_r / T_r

    `len(w)` is a per-token length from `token_lengths`: 1 for every token counts tokens; the number
    of characters a token adds (`decoders.token_lengths.char_lengths`) makes L a limit in characters,
    as the article's "at most 200 characters". Unlike `TemperatureDecayLogitsWarper`, which follows the
    step count, T follows the length each row has really written, so rows of a batch that write
    short and long tokens cool at their own pace. Past the limit T stays T_end. The lengths are one
    gather and one sum per step over the batch; T is computed in float32 and the scores keep their
    dtype. Use it with `generate(temperature=1.0)`; top-k and top-p then act on the cooled scores.

    Args:
        t_start (`float`):
            T for an empty output; > 0.
        t_end (`float`):
            T once the output has reached the limit; > 0 (may exceed `t_start`, which then warms up).
        length_limit (`int`):
            L, in the unit of `token_lengths`; ≥ 1.
        prompt_length (`int`):
            Length of the prompt in `input_ids`; tokens before it are not output.
        token_lengths (`torch.Tensor`, *optional*):
            Shape `(vocabulary,)`, the length each token id adds; ids beyond it add 0. None: every
            token adds 1 (L is then in tokens).
        gamma (`float`, *optional*, defaults to 1.0):
            Shape of the fall: 1 linear in the length, > 1 cools early, < 1 cools late.

    Examples:
        >>> import torch
        >>> from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessorList
        >>> _ = torch.manual_seed(0)
        >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        ...                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=None, pad_token_id=0)
        >>> model = LlamaForCausalLM(config).eval()
        >>> prompt = torch.tensor([[1, 5, 9]])

        With T_start = T_end the temperature is constant, so it samples what `generate(temperature=T)`
        samples with the same seed:

        >>> flat = LengthAwareTemperatureLogitsWarper(0.6, 0.6, length_limit=8, prompt_length=3)
        >>> _ = torch.manual_seed(1)
        >>> a = model.generate(prompt, do_sample=True, temperature=1.0, top_k=0, max_new_tokens=6,
        ...                    logits_processor=LogitsProcessorList([flat]))
        >>> _ = torch.manual_seed(1)
        >>> torch.equal(a, model.generate(prompt, do_sample=True, temperature=0.6, top_k=0, max_new_tokens=6))
        True

        By hand (0.75 → 0.45 over L = 10 characters; token 7 writes 5 characters, token 2 writes 1).
        Row 0 has written 5 of 10 characters: T = 0.45 + 0.3·0.5 = 0.6; row 1 wrote 1: T = 0.72:

        >>> lengths = torch.ones(32)
        >>> lengths[7] = 5
        >>> w = LengthAwareTemperatureLogitsWarper(0.75, 0.45, length_limit=10, prompt_length=1, token_lengths=lengths)
        >>> w.temperatures(torch.tensor([[4, 7], [4, 2]]))
        tensor([0.6000, 0.7200])
        >>> w(torch.tensor([[4, 7], [4, 2]]), torch.tensor([[1.2], [1.44]]))
        tensor([[2.],
                [2.]])
        >>> w(torch.tensor([[4, 7]]), torch.tensor([[1.2]]).bfloat16()).dtype
        torch.bfloat16
    """

    def __init__(
        self,
        t_start: float,
        t_end: float,
        length_limit: int,
        prompt_length: int,
        token_lengths: torch.Tensor | None = None,
        gamma: float = 1.0,
    ):
        if not t_start > 0 or not t_end > 0:
            raise ValueError(f"temperatures must be > 0, got t_start={t_start}, t_end={t_end}")
        if length_limit < 1:
            raise ValueError(f"length_limit must be ≥ 1, got {length_limit}")
        if gamma < 0:
            raise ValueError(f"gamma must be ≥ 0, got {gamma}")
        self.t_start, self.t_end, self.gamma = float(t_start), float(t_end), float(gamma)
        self.length_limit, self.prompt_length = int(length_limit), int(prompt_length)
        # One extra 0 at the end: ids the table does not cover (padding rows of the output layer) add 0.
        self.token_lengths = None if token_lengths is None else torch.cat([token_lengths.float(), torch.zeros(1)])
        self._on: dict[torch.device, torch.Tensor] = {}

    def lengths(self, input_ids: torch.Tensor) -> torch.Tensor:
        """ℓ_r, the length of each row's output so far, float32 of shape (batch,)."""
        out = input_ids[:, self.prompt_length :]
        if self.token_lengths is None:
            return torch.full((input_ids.shape[0],), float(out.shape[1]), device=input_ids.device)
        table = self._on.get(input_ids.device)
        if table is None:
            table = self._on[input_ids.device] = self.token_lengths.to(input_ids.device)
        return table[out.clamp(max=table.shape[0] - 1)].sum(dim=-1)

    def temperatures(self, input_ids: torch.Tensor) -> torch.Tensor:
        """T_r for each row, float32 of shape (batch,)."""
        progress = (self.lengths(input_ids) / self.length_limit).clamp(0.0, 1.0)
        return self.t_end + (self.t_start - self.t_end) * (1.0 - progress) ** self.gamma

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.Tensor:
        t = self.temperatures(input_ids).to(scores.device)
        # Divided in float32 and rounded once, as transformers' TemperatureLogitsWarper divides a
        # bfloat16 tensor by a Python float: the same scores at a constant T, in every dtype.
        return (scores.float() / t[:, None]).to(scores.dtype)
