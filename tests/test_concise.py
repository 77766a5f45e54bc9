"""TS-Tilted-Concise: the instruction (where it enters the prompt, in which language), the
verbose-phrase penalty (token sequences, where the bias lands, the formula), TS-Tilted's tokens
when both are off, studies' batching, and the vLLM engine's refusal."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
import torch
from transformers import LogitsProcessorList, SequenceBiasLogitsProcessor, TemperatureLogitsWarper

import decoders
from arena import studies
from arena.engines.local import batching
from arena.engines.local.inputs import encode, encode_ids, method_ids
from arena.inputs.prompts import SCENARIOS, chat_messages, default_system_prompt, encode_prompt
from arena.model.llm import decode_context
from arena.rating.study_spec import StudySpec
from arena.runs.requests import RunRequest, validate_request
from arena.runs.runner import run_methods
from arena.store import Store
from common.errors import UserError
from decoders.methods.ts_tilted_concise import INSTRUCTIONS, prompt_language
from decoders.phrases import count_phrases, default_phrases, normalize_phrases, parse_phrases, token_sequences
from decoders.priors import build_prior
from tests.test_core_equivalence import bare_generate
from ui.compare import form as cform

NAME = "TS-Tilted-Concise"
PROMPT = "Explain the basic principles of quantum computing."
N = 12
OFF = {"phrases": "", "instruction": "off"}


def concise():
    return decoders.get(NAME)


def run(lm, method, seed, settings=None, prompt=PROMPT, raw=False, n=N):
    (result,) = run_methods(lm, RunRequest(prompt, [method], {method: settings} if settings else {}, n, seed, raw))
    return result


# ---- settings --------------------------------------------------------------------------------------


def test_defaults_are_ts_tilted_plus_instruction_and_the_shipped_phrases():
    d, tilted = concise().defaults(), decoders.get("TS-Tilted").defaults()
    assert {k: d[k] for k in tilted} == tilted
    assert d["instruction"] == "auto" and d["phrase_penalty"] == 1.0
    assert parse_phrases(d["phrases"]) == default_phrases()
    for phrase in ("very", "actually", "basically", "in a sense", "非常", "实际上", "从某种程度上说"):
        assert phrase in default_phrases()
    assert NAME in decoders.names()


@pytest.mark.parametrize(
    "value,fragment",
    [
        (12, "must be text"),
        ("very, ...", "no letters"),
        ("very, a\x00b", "control"),
        ("x" * 61, "the limit is 60"),
        (", ".join(f"w{i}" for i in range(201)), "the limit is 200"),
        ("a, " * 2001, "the limit is 4,000"),
    ],
)
def test_bad_phrase_lists_are_refused_before_anything_runs(value, fragment):
    with pytest.raises(UserError, match=fragment):
        concise().resolve({"phrases": value})
    with pytest.raises(UserError, match=fragment):  # the runner's validation, before any generation
        validate_request(RunRequest("hi", [NAME], {NAME: {"phrases": value}}, 4, 0))


def test_phrase_lists_are_normalised_and_an_empty_one_is_allowed():
    s = concise().resolve({"phrases": " very ,actually\n实际上、 very", "phrase_penalty": "2"})
    assert s["phrases"] == "very, actually, 实际上" and s["phrase_penalty"] == 2.0
    assert normalize_phrases(s["phrases"]) == s["phrases"]  # resolved again when planned
    assert concise().resolve({"phrases": "  \n"})["phrases"] == ""
    with pytest.raises(UserError, match="one of"):
        concise().resolve({"instruction": "fr"})


def test_the_prompt_language_rule():
    assert prompt_language("解释一下量子计算的基本原理。") == "zh"
    assert prompt_language("解释一下 quantum computing 的基本原理") == "zh"  # 8 Han characters, 2 Latin words
    assert prompt_language("Translate 你好 into English") == "en"  # 2 Han characters, 3 Latin words
    assert prompt_language("1 + 1 = ?") == "en"
    for s in SCENARIOS:
        assert concise().instruction(None, s.prompt) == INSTRUCTIONS[s.language]
    assert concise().instruction({"instruction": "zh"}, PROMPT) == "请使用简洁的语言。"
    assert concise().instruction({"instruction": "off"}, PROMPT) == ""
    assert decoders.get("TS-Tilted").instruction(None, PROMPT) == ""


# ---- where the instruction enters the prompt -------------------------------------------------------


def test_the_instruction_follows_the_templates_default_system_prompt(lm):
    default = default_system_prompt(lm.tokenizer)
    assert default.startswith("You are a helpful AI assistant named SmolLM")
    system, user = chat_messages(lm.tokenizer, PROMPT, "Use concise language.")
    assert system == {"role": "system", "content": f"{default}\nUse concise language."}
    assert user == {"role": "user", "content": PROMPT}
    assert chat_messages(lm.tokenizer, PROMPT) == [user]
    text = lm.tokenizer.decode(encode_prompt(lm.tokenizer, PROMPT, False, "cpu", 8192, 8, "Use concise language.")[0])
    assert f"{default}\nUse concise language.<|im_end|>" in text and text.count(default) == 1
    raw = lm.tokenizer.decode(encode_prompt(lm.tokenizer, "I walked", True, "cpu", 8192, 8, "请使用简洁的语言。")[0])
    assert raw.endswith("请使用简洁的语言。\n\nI walked")


class _Template:
    """A tokenizer's chat side only: a template without a default system prompt, or without a system role."""

    def __init__(self, system_role: bool):
        self.system_role = system_role

    def apply_chat_template(self, messages, add_generation_prompt, tokenize):
        if messages[0]["role"] == "system" and not self.system_role:
            raise ValueError("System role not supported")
        return "".join(f"<{m['role']}>{m['content']}</{m['role']}>" for m in messages) + "<assistant>"


def test_templates_without_a_default_or_without_a_system_role():
    assert default_system_prompt(_Template(True)) == ""
    assert chat_messages(_Template(True), "hi", "Be brief.")[0] == {"role": "system", "content": "Be brief."}
    assert default_system_prompt(_Template(False)) is None
    assert chat_messages(_Template(False), "hi", "Be brief.") == [{"role": "user", "content": "Be brief.\n\nhi"}]


def test_each_method_gets_its_own_prompt_only_where_it_adds_an_instruction(lm):
    req = RunRequest(PROMPT, ["TS-Tilted", NAME], {}, N, 0)
    shared = encode_ids(lm, req)
    ids = method_ids(lm, req)
    assert ids["TS-Tilted"] == shared and len(ids[NAME]) > len(shared)
    assert method_ids(lm, RunRequest(PROMPT, ["TS-Tilted", NAME], {NAME: {"instruction": "off"}}, N, 0)) == shared


# ---- the phrase penalty ----------------------------------------------------------------------------


def test_token_sequences_have_the_variants_and_stop_at_the_last_characters_first_token(lm):
    tok = lm.tokenizer
    found = token_sequences(tok, ["very", "in a sense", "非常", "很"])
    seqs = set(found.sequences)
    for text in (" very", " Very", "Very", " in a sense", "In a sense"):
        assert tuple(tok.encode(text, add_special_tokens=False)) in seqs, text
    assert tuple(tok.encode("very", add_special_tokens=False)) not in seqs  # would also bias "deli|very"
    full = tok.encode("非常", add_special_tokens=False)
    assert len(full) == 4  # two characters, two byte tokens each, on this vocabulary
    cut = [q for q in found.sequences if list(q) == full[: len(q)]]
    assert len(cut) == 1 and len(cut[0]) == 3
    assert tok.decode(list(cut[0][:-1])) == "非"  # the bias lands on the token that starts 常
    assert found.skipped == ("很",)  # one character in byte tokens: no token starts it alone


def test_the_penalty_is_minus_beta_in_the_tempered_logits_after_the_tilt(lm):
    """The plan's processors then generate's temperature: logits/T − λS − β·[completes a phrase]."""
    settings = {"phrases": "very, in a sense, 非常", "phrase_penalty": 2.0, "instruction": "off"}
    s = concise().resolve(settings)
    tok = lm.tokenizer
    contexts = ["It is", "It is, in a", "这个非"]
    for context in contexts:
        ids = torch.tensor([tok.encode(context, add_special_tokens=False)])
        with torch.inference_mode():
            logits = lm.model(ids.to(lm.device)).logits[:, -1, :].float()
        plan = concise().plan(settings, decode_context(lm, ids.shape[1], N, context))
        assert plan.generate_kwargs["temperature"] == s["temperature"]
        scores = logits
        for proc in plan.logits_processors:
            scores = proc(ids, scores)
        got = TemperatureLogitsWarper(s["temperature"])(ids, scores)
        prior = build_prior(tok, s["prior"], lm.logits_size, lm.device, lm.cache_dir)
        expected = logits / s["temperature"] - s["alpha"] * prior
        # one-token phrases ("very" in its three forms) after any context, longer ones after their prefix
        hits = [tok.encode(v)[0] for v in (" very", " Very", "Very")]
        hits += {"It is": [], "It is, in a": [tok.encode(" in a sense")[-1]], "这个非": [tok.encode("非常")[2]]}[
            context
        ]
        expected[0, hits] -= 2.0
        assert torch.allclose(got, expected, atol=1e-5), context
    bf16 = SequenceBiasLogitsProcessor([[[5, 6], -1.0], [[7], -1.0]])
    assert bf16(torch.tensor([[1, 5]]), torch.zeros(1, 10, dtype=torch.bfloat16)).dtype == torch.bfloat16


def test_plans_say_what_ran_and_what_could_not_be_penalised(lm):
    ctx = decode_context(lm, 10, N, "解释一下量子计算的基本原理。")
    plan = concise().plan({"phrases": "very, 很"}, ctx)
    e = plan.effective
    assert e["instruction_text"] == "请使用简洁的语言。" and e["phrases"] == "very, 很" and e["phrase_sequences"] == 3
    assert e["phrases_not_penalised"] == "很"
    assert [type(p).__name__ for p in plan.logits_processors] == [
        "TiltedLogitsProcessor",
        "SequenceBiasLogitsProcessor",
    ]
    for off in ({"phrases": ""}, {"phrase_penalty": 0}):
        plan = concise().plan(off, ctx)
        assert len(plan.logits_processors) == 1 and plan.effective["phrase_sequences"] == 0


def test_count_phrases_counts_whole_words_and_chinese_anywhere():
    phrases = ["very", "in a sense", "非常", "从某种程度上说", "某种程度上"]
    assert count_phrases("Very  good; in a\nsense, every delivery is very fine.", phrases) == 3
    assert count_phrases("这非常好，从某种程度上说，某种程度上。", phrases) == 3
    assert count_phrases("anything", []) == 0


# ---- tokens ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1234])
def test_with_no_phrases_and_no_instruction_it_gives_ts_tilteds_tokens(lm, seed):
    tilted = run(lm, "TS-Tilted", seed)
    off = run(lm, NAME, seed, OFF)
    assert off.token_ids == tilted.token_ids and off.prompt_tokens == tilted.prompt_tokens
    assert {k: off.settings[k] for k in tilted.settings if k != "method"} == {
        k: v for k, v in tilted.settings.items() if k != "method"
    }
    if seed == 0:
        zero = run(lm, NAME, seed, {"instruction": "off", "phrase_penalty": 0})
        assert zero.token_ids == tilted.token_ids


def test_the_instruction_alone_is_ts_tilted_on_the_instructed_prompt(lm):
    """In one request with TS-Tilted: each method reads its own prompt, and the instructed one is
    exactly generate with TS-Tilted's processors on the prompt with the instruction."""
    req = RunRequest(PROMPT, ["TS-Tilted", NAME], {NAME: {"phrases": ""}}, N, 3)
    tilted, instructed = run_methods(lm, req)
    assert tilted.token_ids == run(lm, "TS-Tilted", 3).token_ids
    ids = torch.tensor([encode_ids(lm, req, NAME)], device=lm.device)
    assert instructed.prompt_tokens == ids.shape[1] > tilted.prompt_tokens
    s = decoders.get("TS-Tilted").resolve(None)
    plan = decoders.get("TS-Tilted").plan(None, decode_context(lm, ids.shape[1], N, PROMPT))
    expected = bare_generate(
        lm,
        ids,
        seed=3,
        do_sample=True,
        temperature=s["temperature"],
        top_k=s["top_k"],
        top_p=s["top_p"],
        logits_processor=LogitsProcessorList(plan.logits_processors),
    )
    assert instructed.token_ids == expected
    assert encode(lm, req).shape[1] == tilted.prompt_tokens


def test_a_strong_penalty_removes_a_word_the_model_was_writing(lm):
    """Guards the tests above from passing because the penalty is never applied."""
    base = run(lm, NAME, 5, OFF, n=24)
    # a lower-case word after a space: the form the penalty's " word" variant covers
    word = next(w for w in re.findall(r"(?<= )[a-z]{4,}\b", base.text) if w != "quantum")
    penalised = run(lm, NAME, 5, {"instruction": "off", "phrases": word, "phrase_penalty": 10}, n=24)
    assert count_phrases(base.text, [word]) >= 1
    assert count_phrases(penalised.text, [word]) < count_phrases(base.text, [word])


# ---- studies and engines -----------------------------------------------------------------------------


def test_a_batch_of_one_with_the_instruction_gives_the_runners_tokens(lm):
    prompt = SCENARIOS[0].prompt
    req = RunRequest(prompt, [NAME], {}, N, 99)
    [single] = run_methods(lm, req)
    [row] = batching.generate_batch(lm, NAME, None, [encode_ids(lm, req, NAME)], N, 99, prompt)
    assert row.token_ids == single.token_ids and row.settings["instruction_text"] == "请使用简洁的语言。"


def test_study_batches_read_each_prompt_with_its_own_languages_instruction(lm, tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'c.db'}")
    specs = [studies.PromptSpec(s.prompt, s.key, s.language) for s in SCENARIOS if not s.raw]
    sid = studies.create_study(store, StudySpec("concise", specs, methods=[NAME], max_new_tokens=4), lm=lm)
    assert studies.generate_study(store, lm, sid, batch_size=4).complete
    items = store.items(sid)
    assert {i.language for i in items} == {"en", "zh"}
    for item in items:
        [out] = store.outputs_for_item(item.id)
        assert json.loads(out.settings)["instruction_text"] == INSTRUCTIONS[item.language]
        assert out.prompt_tokens == len(encode_ids(lm, RunRequest(item.prompt, [NAME], {}, 4), NAME))


def test_on_vllm_the_penalty_is_refused_and_the_instruction_alone_translates_like_ts_tilted(lm):
    from arena.engines.vllm import VllmEngine, plan_on_engine, translate

    with pytest.raises(UserError, match="no sequence bias.*phrase_penalty=0"):
        translate(NAME, plan_on_engine(lm, NAME, None, 5, 8, PROMPT))
    body, effective, beam = translate(NAME, plan_on_engine(lm, NAME, {"phrase_penalty": 0}, 5, 8, PROMPT))
    tilted, _, _ = translate("TS-Tilted", plan_on_engine(lm, "TS-Tilted", None, 5, 8, PROMPT))
    assert body == tilted and not beam and effective["instruction_text"] == "Use concise language."
    client = VllmEngine("http://127.0.0.1:9").client
    client.info = lambda: SimpleNamespace(max_model_len=None)  # no server: only the encoding is asked
    req = RunRequest(PROMPT, ["TS-Tilted", NAME], {}, 8, 0)
    assert client.encode(lm, req, NAME) == encode_ids(lm, req, NAME) != client.encode(lm, req, "TS-Tilted")
    assert client.encode(lm, req, "TS-Tilted") == client.encode(lm, req) == encode_ids(lm, req)


def test_compare_shows_a_text_box_for_the_phrases_and_runs_what_was_typed():
    import gradio as gr

    keys = cform.param_keys()
    phrases = next(p for m, p in keys if m == NAME and p.name == "phrases")
    box = cform.control_for(phrases)
    assert isinstance(box, gr.Textbox) and box.value == phrases.default
    values = [("very, 其实" if (m, p.name) == (NAME, "phrases") else p.default) for m, p in keys]
    req = cform.make_request(PROMPT, ["TS-Tilted", NAME], False, 0, 8, values)
    assert req.settings == {NAME: {"phrases": "very, 其实"}}
    values[[i for i, (m, p) in enumerate(keys) if (m, p.name) == (NAME, "phrases")][0]] = "..."
    with pytest.raises(UserError, match="no letters"):
        cform.make_request(PROMPT, [NAME], False, 0, 8, values)
