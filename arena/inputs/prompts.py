"""Prompts: the article's scenarios, validation, and turning text into input ids."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.files.readers import csv_table, jsonl_records, read_text, text_lines
from arena.inputs.paper import PAPER_EN, PAPER_ZH
from arena.inputs.text import printable
from common import messages
from common.errors import UserError

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class Scenario:
    key: str
    language: str
    prompt: str
    raw: bool = False  # the long continuation is a text to continue, not a chat turn


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("short-qa", "zh", "解释一下量子计算的基本原理。"),
    Scenario("letter", "zh", "给一位帮助过你的同事写一封感谢信，要真诚、具体。"),
    Scenario(
        "sci-fi",
        "zh",
        "在那个被遗忘的星际港口，生锈的飞船骨架像巨兽的骨骸般林立。我穿着破旧的太空服，走在",
        raw=True,
    ),
    Scenario("short-qa", "en", "Explain the basic principles of quantum computing."),
    Scenario(
        "letter",
        "en",
        "Write a thank-you letter to a colleague who helped you. Make it sincere and specific.",
    ),
    Scenario(
        "sci-fi",
        "en",
        "In that forgotten interstellar port, the rusted skeletons of starships stood like the "
        "bones of giant beasts. In my worn-out spacesuit, I walked",
        raw=True,
    ),
)

# Article 003's three end-to-end tasks (§5), each checked automatically by `evaluation.tasks`. Kept
# apart from SCENARIOS (article 000's three, which the benchmark and built-in studies use by default):
# they are tasks with right and wrong answers, and the summary's prompt carries a 2800-character paper.
SUMMARY_LIMIT_CHARS = 200

TASK_SCENARIOS: tuple[Scenario, ...] = (
    Scenario("math-cylinder", "zh", "一个圆柱体底面半径3cm，高5cm。现将其沿轴线切成两半，求半个圆柱体的表面积。"),
    Scenario("code-indices", "zh", "写一个Python函数，接收列表和阈值，返回列表中大于阈值的元素索引。"),
    Scenario(
        "summary-paper",
        "zh",
        f"请阅读下面的论文，写一段不超过{SUMMARY_LIMIT_CHARS}字的中文摘要，保留关键数据（数值、单位和对比基准）。"
        f"\n\n{PAPER_ZH}",
    ),
    Scenario(
        "math-cylinder",
        "en",
        "A cylinder has a base radius of 3 cm and a height of 5 cm. It is cut into two halves along its axis. "
        "Find the surface area of one half.",
    ),
    Scenario(
        "code-indices",
        "en",
        "Write a Python function that takes a list and a threshold and returns the indices of the elements "
        "greater than the threshold.",
    ),
    Scenario(
        "summary-paper",
        "en",
        f"Read the paper below and summarize it in at most {SUMMARY_LIMIT_CHARS} characters, keeping the key "
        f"figures (numbers, units and the baseline).\n\n{PAPER_EN}",
    ),
)

MAX_PROMPT_CHARS = 100_000


def clean_prompt(prompt: object) -> str:
    """Validate a prompt: text, not blank, no control characters beyond tab and newline."""
    if not isinstance(prompt, str):
        raise UserError(messages.english("prompt_not_text"))
    if len(prompt) > MAX_PROMPT_CHARS:
        raise UserError(messages.text("prompt_too_long", n=f"{len(prompt):,}", limit=f"{MAX_PROMPT_CHARS:,}"))
    # Control characters are invisible to the user and confuse tokenizers; drop them, keep layout.
    cleaned = printable(prompt, keep="\t\n")
    if not cleaned.strip():
        raise UserError(messages.english("prompt_empty"))
    return cleaned


@dataclass(frozen=True)
class PromptSpec:
    prompt: str
    scenario: str = ""
    language: str = ""
    raw: bool = False

    def as_item(self) -> dict[str, Any]:
        return {"prompt": self.prompt, "scenario": self.scenario, "language": self.language, "raw": self.raw}


# ---- prompt files: one set of rules for the Organizer upload, the studies CLI and the benchmark ----

PROMPT_FILE_SUFFIXES = (".csv", ".jsonl", ".ndjson", ".json", ".txt")


def parse_pasted(text: str | None, scenario: str = "pasted") -> list[PromptSpec]:
    """One prompt per line ("\n" ends a line; U+2028 inside a prompt does not), each stripped; blank
    lines are skipped."""
    lines = [line.strip() for _, line in text_lines(text or "")]
    return [PromptSpec(clean_prompt(line), scenario) for line in lines if line]


_TRUE, _FALSE = {"1", "true", "yes", "y"}, {"", "0", "false", "no", "n"}


def _truthy(value: Any, file: str, line: int) -> bool:
    """A yes/no cell; anything else ("maybe") is refused, not read as no."""
    if isinstance(value, bool):
        return value
    word = str("" if value is None else value).strip().lower()
    if word not in _TRUE | _FALSE:
        raise UserError(messages.text("prompt_raw_value", file=file, line=line, value=repr(value)))
    return word in _TRUE


def _spec_from_record(record: Any, file: str, line: int, default_scenario: str) -> PromptSpec:
    """The prompt of line `line` of file `file` (a record of it); UserError naming the file and line."""
    if isinstance(record, str):
        return PromptSpec(clean_prompt(record), default_scenario)
    if not isinstance(record, Mapping):
        raise UserError(messages.text("prompt_record_kind", file=file, line=line))
    if "prompt" not in record or record["prompt"] in (None, ""):
        raise UserError(messages.text("prompt_record_no_prompt", file=file, line=line))
    try:
        prompt = clean_prompt(record["prompt"])
    except UserError as exc:
        raise UserError(messages.text("file_line_error", file=file, line=line, error=str(exc))) from None
    return PromptSpec(
        prompt,
        str(record.get("scenario") or default_scenario),
        str(record.get("language") or ""),
        _truthy(record.get("raw"), file, line),
    )


def read_prompt_file(path: str | Path, default_scenario: str = "file") -> list[PromptSpec]:
    """The prompts in a file, or a UserError that names the file and line.

    * ``.csv``: a header row with a ``prompt`` column (optional ``scenario``, ``language``, ``raw``);
      rows with a blank prompt are skipped.
    * ``.jsonl`` (also ``.ndjson``, ``.json``): one JSON value per line, an object with ``prompt``
      (and the same optional fields) or a plain string; blank lines are skipped.
    * ``.txt``: one prompt per line, stripped; blank lines are skipped.

    UTF-8, with or without a byte-order mark. ``raw`` is true for true/1/yes/y. Every prompt passes
    `clean_prompt`; a file with no prompt at all is refused. A missing ``scenario`` is
    `default_scenario`."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in PROMPT_FILE_SUFFIXES:
        raise UserError(messages.text("prompt_file_kind", file=path.name))
    data = read_text(path, path.name)
    if "\x00" in data:  # a NUL is no layout: a binary or damaged file, not a prompt to clean quietly
        line = data.count(chr(10), 0, data.index(chr(0))) + 1
        raise UserError(messages.text("prompt_file_nul", file=path.name, line=line))
    specs: list[PromptSpec] = []
    if suffix == ".csv":
        table = csv_table(data, path.name) if data.strip() else None
        if table is None or "prompt" not in [f.strip() for f in table.header]:
            raise UserError(messages.text("prompt_file_no_header", file=path.name))
        for row in table.rows:
            record = {k.strip(): v for k, v in row.values.items()}
            if (record.get("prompt") or "").strip():
                specs.append(_spec_from_record(record, path.name, row.line, default_scenario))
    elif suffix == ".txt":
        specs = parse_pasted(data, default_scenario)
    else:
        for n, record in jsonl_records(data, path.name):
            specs.append(_spec_from_record(record, path.name, n, default_scenario))
    if not specs:
        raise UserError(messages.text("prompt_file_empty", file=path.name))
    return specs


_PROBE_SYSTEM, _PROBE_USER = "\x00arena-system\x00", "\x00arena-user\x00"


def default_system_prompt(tokenizer) -> str | None:
    """The system prompt the chat template adds when it is given none ("" if it adds none; None if it
    has no system role). Read by rendering the template with and without a marker system message:
    SmolLM2's adds "You are a helpful AI assistant named SmolLM, trained by Hugging Face"."""
    user = [{"role": "user", "content": _PROBE_USER}]
    try:
        with_system = tokenizer.apply_chat_template(
            [{"role": "system", "content": _PROBE_SYSTEM}, *user], add_generation_prompt=True, tokenize=False
        )
        plain = tokenizer.apply_chat_template(user, add_generation_prompt=True, tokenize=False)
    except Exception:  # jinja2's TemplateError and whatever a template raises for a role it refuses
        return None
    if with_system.count(_PROBE_SYSTEM) != 1:
        return None  # the template drops or repeats the system message
    before, after = with_system.split(_PROBE_SYSTEM)
    if plain.startswith(before) and plain.endswith(after) and len(plain) >= len(before) + len(after):
        return plain[len(before) : len(plain) - len(after)]
    return ""


def chat_messages(tokenizer, prompt: str, instruction: str = "") -> list[dict[str, str]]:
    """The user's turn, and a method's instruction (`decoders.Decoder.instruction`) in the system
    prompt: after the template's default system prompt where it has one (so the model keeps the
    persona it was tuned with), as the system prompt otherwise, and before the user's text where
    the template has no system role."""
    user = {"role": "user", "content": prompt}
    if not instruction:
        return [user]
    default = default_system_prompt(tokenizer)
    if default is None:
        return [{"role": "user", "content": f"{instruction}\n\n{prompt}"}]
    return [{"role": "system", "content": f"{default}\n{instruction}" if default else instruction}, user]


def encode_prompt(
    tokenizer,
    prompt: str,
    raw: bool,
    device: torch.device | str,
    context_length: int,
    max_new_tokens: int,
    instruction: str = "",
) -> torch.Tensor:
    """Input ids of shape (1, n) on `device`, through the chat template unless `raw`. A method's
    `instruction` goes into the system prompt (`chat_messages`), or in raw mode before the text,
    followed by a blank line. This is the one place where an instruction enters a prompt."""
    prompt = clean_prompt(prompt)
    if not raw and getattr(tokenizer, "chat_template", None):
        ids = tokenizer.apply_chat_template(
            chat_messages(tokenizer, prompt, instruction), add_generation_prompt=True, tokenize=True
        )
        if hasattr(ids, "keys"):  # transformers 5 returns a BatchEncoding
            ids = ids["input_ids"]
    else:
        text = f"{instruction}\n\n{prompt}" if instruction else prompt
        ids = tokenizer(text, add_special_tokens=True)["input_ids"]
    if ids and isinstance(ids[0], list):
        ids = ids[0]
    budget = context_length - max_new_tokens
    if len(ids) > budget:
        said: dict[str, Any] = dict(
            n=f"{len(ids):,}", max_new=max_new_tokens, context=f"{context_length:,}", most=f"{max(budget, 0):,}"
        )
        raise UserError(messages.text("prompt_too_many_tokens", **said))
    import torch  # late: the prompt files, the studies and their CLIs use this module without loading torch

    return torch.tensor([ids], dtype=torch.long, device=device)
