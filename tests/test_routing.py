"""Task routing: the transparent rule, the article's presets, greedy tasks, both routing paths."""

import pytest
import torch

import decoders
from decoders import DecodeContext
from decoders.routing import PRESETS, TASKS, classify


@pytest.mark.parametrize(
    "prompt,task",
    [
        ("Write a Python function that returns the indices of elements above a threshold.", "code"),
        ("写一个函数，接收列表和阈值，返回大于阈值的元素索引。", "code"),
        ("Fix this bug:\n```js\nlet x = 1\n```", "code"),
        ("A cylinder has radius 3 cm and height 5 cm. What is the area of half of it?", "math"),
        ("一个圆柱体底面半径3cm，高5cm，求半个圆柱体的表面积。", "math"),
        ("What is 17 * 23?", "math"),
        ("Summarize the following paper in 200 words: we measured 37% more ...", "summary"),
        ("请总结这篇论文的方法、结果和局限。", "summary"),
        ("TL;DR of this Python code review, please", "summary"),
        ("Hi! How was your weekend?", "chat"),
        ("你好，今天过得怎么样？", "chat"),
        ("解释一下量子计算的基本原理。", "chat"),
    ],
)
def test_classify(prompt, task):
    route = classify(prompt)
    assert route.task == task
    assert route.task in route.reason  # the reason names the rule (or the default)


def test_the_article_scenarios_are_chat():
    from arena.inputs.prompts import SCENARIOS

    assert {s.key: classify(s.prompt).task for s in SCENARIOS} == {s.key: "chat" for s in SCENARIOS}


def test_reason_quotes_the_matched_text():
    assert classify("请帮我调试这段代码").reason == "code rule matched '调试'"
    assert "default" in classify("Tell me about your favourite film").reason


def _ctx(prompt: str | None) -> DecodeContext:
    ctx = DecodeContext(tokenizer=None, device=torch.device("cpu"), logits_size=10, prompt_length=4, max_new_tokens=8)
    if prompt is not None:
        ctx.prompt = prompt  # the runner's prompt text, where the runner provides it
    return ctx


@pytest.mark.parametrize("task", TASKS)
def test_each_task_gets_the_article_preset(task):
    plan = decoders.get("Routed").plan({"task": task}, _ctx(None))
    kw, eff = plan.generate_kwargs, plan.effective
    preset = PRESETS[task]
    assert kw["do_sample"] is True and kw["temperature"] == preset["temperature"]
    assert kw["top_k"] == preset["top_k"] == eff["top_k"] and kw["top_p"] == preset["top_p"] == eff["top_p"]
    assert eff["route"]["task"] == task and "by hand" in eff["route"]["reason"]


def test_article_numbers():
    assert PRESETS["math"] == {"temperature": 0.85, "top_p": 0.95, "top_k": 0}
    assert PRESETS["code"]["temperature"] == 0.3 and PRESETS["code"]["top_k"] == 20
    assert PRESETS["summary"]["temperature"] == 0.6 and PRESETS["summary"]["top_p"] == 0.9
    assert PRESETS["chat"]["temperature"] == 0.45 and PRESETS["chat"]["top_k"] == 15
    assert PRESETS["chat"]["no_repeat_ngram_size"] == 3


def test_routing_from_prompt_text_and_greedy_tasks():
    routed = decoders.get("Routed")
    plan = routed.plan(None, _ctx("Write a SQL query for active users"))
    assert plan.effective["route"]["task"] == "code" and plan.generate_kwargs["temperature"] == 0.3
    assert plan.custom_generate is None
    greedy = routed.plan({"greedy_code": True}, _ctx("Write a SQL query for active users"))
    assert greedy.generate_kwargs["do_sample"] is False and "temperature" not in greedy.generate_kwargs
    assert greedy.effective["do_sample"] is False and "disabled for code" in greedy.effective["route"]["sampling"]
    # greedy_code does not touch other tasks
    chat = routed.plan({"greedy_code": True}, _ctx("Hello there!"))
    assert chat.generate_kwargs["do_sample"] is True and chat.generate_kwargs["no_repeat_ngram_size"] == 3
    greedy_chat = routed.plan({"greedy_chat": True}, _ctx("Hello there!"))
    assert greedy_chat.generate_kwargs == {
        "do_sample": False,
        "num_beams": 1,
        "no_repeat_ngram_size": 3,
        "max_new_tokens": 8,
    }


def test_routing_when_only_ids_are_known(lm):
    """Without the prompt text in the context, routing happens on the decoded ids at generation
    time; the effective settings are completed before the runner records them, and the tokens are
    those of bare generate with the code preset."""
    from arena.runs.requests import RunRequest
    from arena.runs.runner import run_methods

    prompt = "def fibonacci(n):"
    (res,) = run_methods(lm, RunRequest(prompt, ["Routed"], max_new_tokens=6, seed=2, raw=True))
    if getattr(decoders.DecodeContext, "prompt", None) is None:
        assert "decoded prompt" in res.settings["route"]["reason"]
    assert res.settings["route"]["task"] == "code"
    assert res.settings["temperature"] == 0.3 and res.settings["top_k"] == 20
    ids = lm.tokenizer(prompt, return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        torch.manual_seed(2)
        bare = lm.model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            do_sample=True,
            temperature=0.3,
            top_k=20,
            top_p=1.0,
            max_new_tokens=6,
            pad_token_id=lm.tokenizer.pad_token_id,
        )
    assert res.token_ids == bare[0, ids.shape[1] :].tolist()[: len(res.token_ids)]
