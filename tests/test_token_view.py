"""Compare's token view ("why this token?"): the recording is of the run itself.

The recorded tokens are the run's output tokens; the last stage's probabilities are the ones
`generate` sampled from (checked against its own `output_scores`); recording changes no token;
the tilt visibly moves probability away from "the"; beam search's recorded beams carry their true
cumulative log-probabilities (checked by teacher forcing); engines that cannot record say so.
"""

from __future__ import annotations

import pytest
import torch

from arena.engines import LOCAL
from arena.engines.dummy import DummyEngine
from arena.engines.local.inputs import device_ids, encode_ids, plan_for
from arena.runs import token_view
from arena.runs.requests import RunRequest
from common.errors import UserError
from decoders.recording import recording
from ui.compare import token_view as panel

PROMPT = "Write one sentence about the history of the city and the river."
TOKENS = 12


@pytest.fixture(scope="module")
def tilted(lm):
    req = RunRequest(PROMPT, ["TS-Tilted"], {"TS-Tilted": {"alpha": 0.5}}, TOKENS, 3, record=True)
    (result,) = LOCAL.run_methods(lm, req)
    return result


def test_recorded_tokens_are_the_runs_tokens_and_stages_are_the_chain(tilted):
    record = tilted.record
    assert record["kind"] == "sampling"
    assert record["stages"] == ["model", "tilt λ=0.5", "temperature 0.8", "top-k 50"]
    assert [s["chosen"] for s in record["steps"]] == tilted.token_ids
    assert len(record["steps"]) == tilted.new_tokens == TOKENS
    for s in record["steps"]:
        last = s["probs"][-1]
        assert sum(last) <= 1 + 1e-5
        chosen = s["ids"].index(s["chosen"])
        assert last[chosen] > 0  # drawn from the last stage's support
        assert last == sorted(last, reverse=True)  # rows ordered by what was sampled from


def test_recording_changes_no_token(lm, tilted):
    req = RunRequest(PROMPT, ["TS-Tilted"], {"TS-Tilted": {"alpha": 0.5}}, TOKENS, 3)
    (plain,) = LOCAL.run_methods(lm, req)
    assert plain.record is None
    assert plain.token_ids == tilted.token_ids
    assert "record" not in plain.public()


def test_last_stage_is_what_generate_sampled_from(lm):
    """The same generate call, asked for its own processed scores: softmax of them equals the
    recorded last stage at every recorded id, step by step."""
    req = RunRequest(PROMPT, ["TS-Tilted"], {}, 8, 0)
    input_ids = device_ids(lm, encode_ids(lm, req))
    plan = plan_for(lm, "TS-Tilted", None, input_ids.shape[1], 8, PROMPT)
    with lm.lock, torch.inference_mode(), recording(lm.model) as rec:
        torch.manual_seed(0)
        out = lm.model.generate(
            input_ids=input_ids,
            attention_mask=torch.ones_like(input_ids),
            logits_processor=plan.logits_processors,
            pad_token_id=lm.tokenizer.pad_token_id,
            return_dict_in_generate=True,
            output_scores=True,
            **plan.generate_kwargs,
        )
    record = rec.finish(out.sequences, input_ids.shape[1])
    assert len(record["steps"]) == len(out.scores)
    for s, scores in zip(record["steps"], out.scores):
        sampled = torch.softmax(scores[0].float(), dim=-1)[s["ids"]]
        assert torch.allclose(sampled, torch.tensor(s["probs"][-1]), atol=1e-6)


def test_the_tilt_moves_mass_away_from_the(lm, tilted):
    frame = token_view.shift(tilted.record, lm.tokenizer, ["the"])
    row = frame.iloc[0]
    assert row["steps"] > 0, "the prompt should make 'the' a candidate"
    assert row["tilt λ=0.5 (mean %)"] < row["model (mean %)"]


def test_candidates_frame_shows_the_drawn_token(lm, tilted):
    for step in range(TOKENS):
        frame = token_view.candidates_frame(tilted.record, lm.tokenizer, step)
        assert list(frame.columns)[:2] == ["token", "id"]
        drawn = frame[frame[token_view.CHOSEN] != ""]
        assert drawn["id"].tolist() == [tilted.token_ids[step]]
    with pytest.raises(UserError, match="step must be from 0 to 11"):
        token_view.candidates_frame(tilted.record, lm.tokenizer, TOKENS)


def test_beams_carry_their_true_log_probabilities(lm_fp32):
    # A float32 check: in bf16 (the default where bf16 is faster, e.g. on AMD EPYC) the cached,
    # 4-beam forward and the fresh one-sequence forward below round differently by ~0.1 nats over
    # 6 tokens, which is rounding, not a wrong record.
    lm = lm_fp32
    req = RunRequest(PROMPT, ["BS-4"], {}, 8, 0, record=True)
    (result,) = LOCAL.run_methods(lm, req)
    record = result.record
    assert record["kind"] == "beams"
    n = len(result.token_ids)
    # The output is a running beam at step n-1 plus the token that ended it.
    at = record["steps"][n - 1]["beams"]
    assert result.token_ids[:-1] in [b["tokens"] for b in at]
    # Teacher forcing: a beam's recorded score is the sum of the model's log-probabilities of its tokens.
    step = record["steps"][5]
    best = max(step["beams"], key=lambda b: b["score"])
    prompt = encode_ids(lm, req)
    ids = torch.tensor([prompt + best["tokens"]], device=lm.device)
    with torch.inference_mode():
        logp = torch.log_softmax(lm.model(ids).logits[0].float(), dim=-1)
    forced = sum(float(logp[len(prompt) - 1 + i, t]) for i, t in enumerate(best["tokens"]))
    assert best["score"] == pytest.approx(forced, abs=2e-2)
    frame = token_view.beams_frame(record, lm.tokenizer, 5)
    assert len(frame) == 4 and frame["log-probability"].is_monotonic_decreasing
    assert len(token_view.beams_frame(record, lm.tokenizer, 0)) == 1  # every beam is the prompt


def test_an_engine_that_cannot_record_says_so(lm):
    req = RunRequest(PROMPT, ["TS-Temp"], {}, 4, 0, record=True)
    with pytest.raises(UserError, match="cannot record why each token was chosen"):
        list(DummyEngine().stream_methods(lm, req))


def test_a_run_that_was_not_recorded_is_explained(lm):
    with pytest.raises(UserError, match="Record why each token was chosen"):
        token_view.candidates_frame(None, lm.tokenizer, 0)


def test_the_panel_shows_the_step_the_drawn_token_and_the_shift(lm, tilted):
    state = {"prompt": PROMPT, "raw": False, "results": [tilted]}
    view = panel.step_view(state, "TS-Tilted", 2, lm.tokenizer)
    drawn = token_view.token_text(lm.tokenizer, tilted.token_ids[2])
    assert f"drew **{drawn}**" in view.heading and "TS-Tilted, step 2" in view.heading
    assert [t.name for t in view.figure.data] == tilted.record["stages"]
    assert view.shift is not None and list(view.shift["word"]) == ["the", "的"]
    with pytest.raises(UserError, match="not recorded"):
        panel.step_view({"results": []}, "TS-Tilted", 0, lm.tokenizer)


def test_a_byte_token_of_chinese_shows_its_bytes_or_characters_never_a_replacement(lm):
    """Issue 47: SmolLM2's byte-level vocabulary splits Chinese characters across tokens; each such
    token read alone decodes to "�". The view shows its whole characters and the bytes of a cut one."""
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    assert token_view.BYTE_LEVEL == {c: b for b, c in bytes_to_unicode().items()}  # GPT-2's map, reversed
    ids = lm.tokenizer.encode("在那个被遗忘的星际港口，量子计算", add_special_tokens=False)
    cut = [i for i in ids if "\ufffd" in lm.tokenizer.decode([i])]
    assert cut, "the sentence no longer splits a character: pick another"
    shown = [token_view.token_text(lm.tokenizer, i) for i in ids]
    assert not [s for s in shown if "\ufffd" in s], shown
    assert any("<0x" in token_view.token_text(lm.tokenizer, i) for i in cut)
    # the pieces put back together are the text: bytes where a character is cut, characters elsewhere
    joined = b"".join(token_view.token_bytes(lm.tokenizer, i) or b"" for i in ids)
    assert joined.decode("utf-8") == "在那个被遗忘的星际港口，量子计算"
    assert token_view.readable_bytes("量".encode()[:2]) == "<0xE9><0x87>"
    assert token_view.readable_bytes(" 子".encode() + b"\xe4") == " 子<0xE4>"
