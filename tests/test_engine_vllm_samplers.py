"""The vLLM engine and issue 37's samplers: what vLLM can run exactly is mapped, the rest refused with one
line naming what is missing, and the order the server runs is the order the output records. No server."""

import pytest

from common.errors import UserError

NEW = ("Epsilon", "Eta", "Top-H", "Top-nSigma", "XTC", "DRY", "Mirostat-v2", "Contrastive", "DoLa")


@pytest.fixture(scope="module")
def client_lm():
    from arena.model.llm import tokenizer_only_model

    return tokenizer_only_model()


def body(client_lm, method, overrides=None):
    from arena.engines.vllm import plan_on_engine, translate

    return translate(method, plan_on_engine(client_lm, method, overrides, 5, 8, "Hello"))


@pytest.mark.parametrize(
    "method,overrides,why",
    [
        ("Epsilon", None, "ε-sampling"),
        ("Epsilon", {"temperature": 0.7, "temperature_position": "last"}, "ε-cutoff"),
        ("Eta", None, "η-sampling"),
        ("Top-H", None, "top-H"),
        ("Top-nSigma", None, "top-nσ 1"),
        ("Top-nSigma", {"temperature": 0.7}, "top-nσ 1"),
        ("XTC", None, "XTC 0.1"),
        ("DRY", None, "DRY 0.8"),
        ("Mirostat-v2", None, "mirostat-v2"),
        ("Contrastive", None, "drives the model itself"),
        ("DoLa", None, "drives the model itself"),
    ],
)
def test_new_samplers_are_refused_in_one_line(client_lm, method, overrides, why):
    with pytest.raises(UserError, match=why) as info:
        body(client_lm, method, overrides)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{method} cannot run on the vLLM engine")


def test_a_server_order_is_recorded_with_what_it_runs(client_lm):
    _, temp, _ = body(client_lm, "TS-Temp")
    assert temp["processor_order"] == ["temperature 0.9", "top-k 50", "top-p 0.95"]
    _, rep, _ = body(client_lm, "Repetition-Penalty")
    assert rep["processor_order"] == ["repetition penalty 1.2", "temperature 0.9", "top-k 50", "top-p 0.95"]
    _, minp, _ = body(client_lm, "Min-p")
    assert minp["processor_order"] == ["min-p 0.1"]
    _, greedy, _ = body(client_lm, "Greedy")
    assert greedy["processor_order"] == []
    _, tilt, _ = body(client_lm, "TS-Tilted")
    assert tilt["processor_order"] == ["tilt λ=0.15", "temperature 0.8", "top-k 50"]


def test_every_new_sampler_is_registered_and_listed():
    from decoders.__main__ import list_decoders

    listing = list_decoders()
    for name in NEW:
        assert f"\n{name}: " in "\n" + listing
