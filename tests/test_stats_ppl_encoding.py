"""encode_pair: joint encoding checked; prompts ending in a space or mid-word are split the
lm-evaluation-harness way and flagged (the embedded model's tokenizer)."""

from evaluation.perplexity import continuation_scores, encode_pair

REST = " and looked at the door."


def ids(lm, text, special=True):
    return lm.tokenizer(text, add_special_tokens=special)["input_ids"]


def test_a_clean_boundary_keeps_the_separate_encoding(lm):
    pair = encode_pair(lm, "The cat sat on the", " mat" + REST)
    prompt, cont = pair  # still unpacks as (prompt ids, continuation ids)
    assert not pair.harness
    assert prompt == ids(lm, "The cat sat on the") and cont == ids(lm, " mat" + REST, False)
    assert prompt + cont == ids(lm, "The cat sat on the mat" + REST)
    chat = encode_pair(lm, "Explain quantum computing.", "Quantum computing uses qubits.", raw=False)
    assert not chat.harness


def test_a_prompt_ending_in_a_space_is_scored_the_harness_way(lm):
    pair = encode_pair(lm, "The cat sat on the ", "mat" + REST)
    assert pair.harness
    context, cont = pair
    assert context == ids(lm, "The cat sat on the")  # the space moved to the continuation
    assert context + cont == ids(lm, "The cat sat on the mat" + REST)
    assert lm.tokenizer.decode(cont).startswith(" mat")
    naive = (ids(lm, "The cat sat on the "), ids(lm, "mat" + REST, False))
    harness, alone = continuation_scores(lm, [pair, naive])
    assert harness.tokens == alone.tokens and harness.nll < alone.nll - 3  # "mat" after a lone space is improbable


def test_a_prompt_ending_mid_word_is_scored_the_harness_way(lm):
    pair = encode_pair(lm, "The cat sat on the m", "at" + REST)
    assert pair.harness
    context, cont = pair
    whole = ids(lm, "The cat sat on the mat" + REST)
    assert context == ids(lm, "The cat sat on the m") and cont == whole[len(context) :]
    naive = (context, ids(lm, "at" + REST, False))
    harness, alone = continuation_scores(lm, [pair, naive])
    assert harness.nll < alone.nll
