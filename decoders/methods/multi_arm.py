"""Multi-Arm (article 003, §3): Explorer / Stabilizer / Verifier arms over one shared prefix,
scored by a verifier built from the model's own signals, with backtracking to anchors."""

from ..base import DecodeContext, Decoder, GenerationPlan, InvalidSettings, Param
from ..multiarm import ArmConfig, MultiArmGenerator, MultiArmSettings, SignalVerifier
from ..registry import register


def settings_from(s: dict) -> MultiArmSettings:
    arms = (
        ArmConfig("Explorer", s["explorer_temperature"], 0, s["explorer_top_p"]),
        ArmConfig("Stabilizer", s["stabilizer_temperature"], s["stabilizer_top_k"], 1.0),
        ArmConfig("Verifier", s["verifier_temperature"], 0, 1.0),
    )
    return MultiArmSettings(
        arms=arms,
        score_window=s["score_window"],
        anchor_threshold=s["anchor_threshold"],
        variance_threshold=s["variance_threshold"],
        drop_fraction=s["drop_fraction"],
        reexplore_boost=s["reexplore_boost"],
        max_backtracks=s["max_backtracks"],
        realloc_every=s["realloc_every"],
        prune_weight=s["prune_weight"],
    )


def plan(s: dict, ctx: DecodeContext) -> GenerationPlan:
    if ctx.model is None:
        raise InvalidSettings("Multi-Arm drives the model itself and needs DecodeContext.model")
    cfg = settings_from(s)
    verifier = SignalVerifier(s["verifier_variance_weight"], s["verifier_entropy_weight"])
    generator = MultiArmGenerator(ctx.model, cfg, verifier, eos_token_id=ctx.tokenizer.eos_token_id)
    effective = {
        "arms": {a.name: {"temperature": a.temperature, "top_k": a.top_k, "top_p": a.top_p} for a in cfg.arms},
        "kv_cache": "prompt computed once, cache repeated to one row per arm",
        "verifier": verifier.describe(),
        "weights": "score / sum of scores; every realloc_every steps the arm below prune_weight continues from the best arm's path",
        "backtrack": (
            f"log-prob variance over {cfg.variance_tokens} tokens > {cfg.variance_threshold} or score falling "
            f">{cfg.drop_fraction:.0%} two steps in a row → back to the last token scoring > "
            f"{cfg.anchor_threshold} (else the prompt's end), T + {cfg.reexplore_boost} for "
            f"{cfg.reexplore_tokens} tokens; at most {cfg.max_backtracks} per arm"
        ),
        "answer": "the arm with the highest mean verifier score",
        **{k: s[k] for k in ("score_window", "realloc_every", "prune_weight")},
    }
    return GenerationPlan(
        generate_kwargs={},
        effective=effective,
        custom_generate=generator,
        notes="the verifier is not the article's trained 200M model",
    )


register(
    Decoder(
        name="Multi-Arm",
        description="Explorer/Stabilizer/Verifier arms on one shared prompt cache, self-scored, with backtracking "
        "(verifier = the model's own log-prob variance and entropy, not a trained model).",
        params=(
            Param("explorer_temperature", 0.95, "float", 0.05, 2.0, 0.05, label="Explorer T"),
            Param("explorer_top_p", 0.98, "float", 0.05, 1.0, 0.01, label="Explorer top-p"),
            Param("stabilizer_temperature", 0.4, "float", 0.05, 2.0, 0.05, label="Stabilizer T"),
            Param("stabilizer_top_k", 10, "int", 1, 1000, 1, label="Stabilizer top-k"),
            Param("verifier_temperature", 0.1, "float", 0.01, 2.0, 0.01, label="Verifier-arm T"),
            Param(
                "anchor_threshold",
                0.85,
                "float",
                0.0,
                1.0,
                0.01,
                label="anchor score",
                help="a token scoring above this is a place to backtrack to (article: 0.85)",
            ),
            Param(
                "variance_threshold",
                2.0,
                "float",
                0.0,
                50.0,
                0.1,
                label="log-prob variance trigger",
                help="backtrack when the variance of the last 3 log-probs exceeds this",
            ),
            Param(
                "drop_fraction",
                0.15,
                "float",
                0.0,
                1.0,
                0.01,
                label="score drop trigger",
                help="backtrack when the score falls by more than this twice in a row (article: 15%)",
            ),
            Param("reexplore_boost", 0.3, "float", 0.0, 2.0, 0.05, label="re-explore T boost"),
            Param("max_backtracks", 3, "int", 0, 20, 1, label="backtracks per arm"),
            Param("score_window", 4, "int", 1, 64, 1, label="verifier window (tokens)"),
            Param("verifier_variance_weight", 0.5, "float", 0.0, 10.0, 0.05, label="verifier: variance weight"),
            Param("verifier_entropy_weight", 0.15, "float", 0.0, 10.0, 0.05, label="verifier: entropy weight"),
            Param("realloc_every", 8, "int", 0, 128, 1, label="prune every (steps)", help="0 = never"),
            Param("prune_weight", 0.2, "float", 0.0, 1.0, 0.01, label="prune below weight"),
        ),
        plan_fn=plan,
        streams=False,  # which arm's text is the answer is known only at the end
        family="article-003",
    )
)
