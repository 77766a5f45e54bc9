"""What every processor in decoders/samplers.py promises, as decoders/processors.py's do: the formula,
the arguments and a `generate` example documented; the scores' dtype and device kept; the batch
handled at once (a batch of two rows gives each row's own answer)."""

import inspect

import pytest
import torch
from transformers import LogitsProcessor

from decoders import samplers
from decoders.samplers import DRYLogitsProcessor, MirostatV2LogitsWarper, TopNSigmaLogitsWarper, XTCLogitsWarper

CLASSES = sorted(
    (
        obj
        for obj in vars(samplers).values()
        if isinstance(obj, type) and issubclass(obj, LogitsProcessor) and obj.__module__ == samplers.__name__
    ),
    key=lambda cls: cls.__name__,
)
IDS = torch.tensor([[3, 4, 5, 9, 3, 4, 5, 7, 3, 4], [1, 2, 1, 2, 1, 2, 1, 2, 1, 2]])


def make(cls):
    return {
        TopNSigmaLogitsWarper: lambda: TopNSigmaLogitsWarper(1.0),
        XTCLogitsWarper: lambda: XTCLogitsWarper(0.05),
        DRYLogitsProcessor: lambda: DRYLogitsProcessor(0.8, 1.75, 2, breaker_ids=[9]),
        MirostatV2LogitsWarper: lambda: MirostatV2LogitsWarper(3.0, 0.1),
    }[cls]()


def test_all_listed():
    assert [c.__name__ for c in CLASSES] == sorted(samplers.__all__) and len(CLASSES) == 4


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_documents_formula_args_and_a_generate_example(cls):
    doc = inspect.getdoc(cls)
    assert "Args:" in doc and "Examples:" in doc and "model.generate(" in doc and ">>> " in doc
    assert "=" in doc.split("Args:")[0]
    for name in list(inspect.signature(cls.__init__).parameters)[1:]:
        assert f"{name} (`" in doc.split("Args:")[1].split("Examples:")[0], f"{cls.__name__}: {name}"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_dtype_and_device_kept(cls, dtype):
    torch.manual_seed(0)
    scores = (torch.randn(2, 40) * 3).to(dtype)
    out = make(cls)(IDS, scores)
    assert out.dtype == dtype and out.device == scores.device and out.shape == scores.shape


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_rows_of_a_batch_are_independent(cls):
    torch.manual_seed(1)
    scores = torch.randn(2, 40) * 3
    together = make(cls)(IDS, scores.clone())
    for r in range(2):
        alone = make(cls)(IDS[r : r + 1], scores[r : r + 1].clone())
        assert torch.equal(together[r : r + 1], alone)


def test_dry_penalises_the_token_that_extends_the_repeat_and_no_other():
    out = DRYLogitsProcessor(0.8, 1.75, 2, breaker_ids=[9])(IDS, torch.zeros(2, 40))
    # row 0 ends "3 4", which occurred twice before, both times followed by 5 (7 followed "4 5")
    assert (out[0] < 0).nonzero().flatten().tolist() == [5]
    assert float(out[0, 5]) == pytest.approx(-0.8, rel=1e-6)
    # row 1: "1 2 1 2 ... 1 2" repeats 8 tokens; 1 would extend it: 0.8 · 1.75^(8 − 2)
    assert (out[1] < 0).nonzero().flatten().tolist() == [1]
    assert float(out[1, 1]) == pytest.approx(-0.8 * 1.75**6, rel=1e-5)
