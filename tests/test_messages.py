"""common/messages.py: one table of every sentence people read, keyed by message id, with English and
Chinese for each. Code names a long text by its id, never by a copy of its English, so editing the
English cannot silently drop the Chinese (the default guidelines were once their own translation key)."""

from __future__ import annotations

import ast
import string
from pathlib import Path

from arena.inputs import language
from common import messages

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("app.py", "common", "decoders", "arena", "evaluation", "ui", "serving")
LONG = 60  # characters: a sentence, not a label


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_message_has_both_languages():
    assert len(messages.MESSAGES) > 250
    for key, (english, chinese) in messages.MESSAGES.items():
        assert isinstance(english, str) and english.strip(), key
        assert isinstance(chinese, str) and chinese.strip(), key
        assert language.chinese_share(chinese) > 0.3 or not language.chinese_share(english) and chinese, key


def test_ids_and_english_texts_are_each_unique():
    assert not set(messages.PAGE) & set(messages.LINES)
    english = [en for en, _ in messages.MESSAGES.values()]
    assert len(english) == len(set(english))  # key_of(english) names one message


def test_page_texts_have_no_braces_and_lines_fill_the_same_fields():
    for key, (english, chinese) in messages.PAGE.items():
        assert not set("{}") & set(english + chinese), key  # Gradio reads them as ICU messages
    for key, (english, chinese) in messages.LINES.items():
        # Chinese may drop a field English needs (the plural "rater{s}"), never add one
        assert fields(chinese) <= fields(english), key
        values = {name: 1 for name in fields(english)}
        assert messages.text(key, "en", **values) and messages.text(key, "zh", **values)


def test_text_fills_values_and_falls_back_to_english():
    assert messages.text("rater_response", "zh", label="B") == "回答 B"
    assert messages.text("rater_response", "fr", label="B") == "Response B"
    assert messages.key_of(messages.english("rater_saved")) == "rater_saved"
    assert messages.key_of("no such sentence") is None


def _string_constants(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, node.value))
    return found


def copies_of_long_messages(root: Path = ROOT) -> list[str]:
    """String literals outside common/messages.py that copy a message's English of more than LONG
    characters (whole, or with other outer whitespace)."""
    long = {en.strip(): key for key, (en, _) in messages.MESSAGES.items() if len(en) > LONG}
    copies = []
    for name in SCANNED:
        top = root / name
        for path in [top] if top.is_file() else sorted(top.rglob("*.py")):
            if path.relative_to(root).as_posix() == "common/messages.py":
                continue
            for line, value in _string_constants(path):
                key = long.get(value.strip())
                if key:
                    copies.append(f"{path.relative_to(root).as_posix()}:{line} copies {key}")
    return copies


def test_no_code_copies_a_sentence_of_the_table():
    copies = copies_of_long_messages()
    assert not copies, "name these by id (common.messages.english):\n" + "\n".join(copies)


def test_the_copy_check_finds_one(tmp_path):
    (tmp_path / "ui").mkdir()
    guidelines = messages.english("rate_guidelines")
    (tmp_path / "ui" / "probe.py").write_text(f"DEFAULT = {guidelines!r}\nOK = english('rate_guidelines')\n")
    assert copies_of_long_messages(tmp_path) == ["ui/probe.py:1 copies rate_guidelines"]
