"""The code task's checker: the answer's first function, run against unit tests in the sandbox.

What is checked, and nothing else:
  * that the answer holds a Python function that parses: the first fenced code block that parses
    (```python … ```; an unclosed fence, an output cut off at max_new_tokens, counts up to where it
    parses), else code found in the plain text from its first `def` on;
  * the *first* function defined at the top level of that code (with the code's top-level imports,
    nothing else of it: example calls and prints are not run), called as f(list, threshold);
  * its return value on each test below, compared out here with the expected list: the indices of
    the elements strictly greater than the threshold, in order, as a list (a tuple counts; a
    generator, set or string does not). The empty list is one of the tests.
The code runs only in the bubblewrap sandbox (evaluation/tasks/sandbox.py), never in this process;
without a sandbox the answer is "not checked". Style and speed are not checked: a loop and a list
comprehension are both O(n), whatever article 003 says.
"""

from __future__ import annotations

import ast
import re
import textwrap
from typing import Any

from . import sandbox
from .verdict import Verdict

# (list, threshold) -> expected indices; what each case is for, in the failure reason.
CASES: tuple[tuple[list[Any], Any, list[int], str], ...] = (
    ([1, 5, 3, 7], 4, [1, 3], "a plain case"),
    ([], 0, [], "the empty list"),
    ([2, 2, 2], 2, [], "elements equal to the threshold"),
    ([-1, -5, 0, 3], -2, [0, 2, 3], "negative numbers"),
    ([0.5, 1.5, 2.5], 1.0, [1, 2], "floats"),
    ([5, 1, 5], 4, [0, 2], "repeated values"),
    ([10], 3, [0], "one element"),
)

_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(", re.MULTILINE)
MAX_TRIMS = 400  # lines dropped from the end while looking for code that parses


def _parses(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _longest_parsing_prefix(source: str) -> tuple[str, ast.Module] | None:
    lines = textwrap.dedent(source).splitlines()
    for cut in range(len(lines), max(0, len(lines) - MAX_TRIMS), -1):
        candidate = "\n".join(lines[:cut])
        tree = _parses(candidate)
        if tree is not None and _first_function(tree) is not None:
            return candidate, tree
    return None


def _first_function(tree: ast.Module) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    return next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def extract(text: str) -> tuple[str, str, str] | None:
    """(source to run, function name, where it was found), or None when no function parses."""
    places: list[tuple[str, str]] = []
    for n, m in enumerate(_FENCE.finditer(text), start=1):
        if m.group(1).lower() in ("", "python", "py", "python3", "py3"):
            places.append((m.group(2), f"code block {n}"))
    first_def = _DEF.search(text)
    if first_def:
        places.append((text[text.rfind("\n", 0, first_def.start()) + 1 :], "the text from its first 'def'"))
    for source, where in places:
        found = _longest_parsing_prefix(source)
        if found is None:
            continue
        code, tree = found
        fn = _first_function(tree)
        assert fn is not None
        imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        parts = [ast.get_source_segment(code, n) or "" for n in imports + [fn]]
        return "\n".join(parts) + "\n", fn.name, where
    return None


def _syntax_error(text: str) -> str:
    m = _FENCE.search(text)
    source = textwrap.dedent(m.group(2) if m else text)
    try:
        ast.parse(source)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return type(exc).__name__
    return "no top-level function"


def check(text: str, limits: sandbox.Limits | None = None) -> Verdict:
    found = extract(text or "")
    if found is None:
        if not _DEF.search(text or ""):
            return Verdict(False, "no Python function in the answer", "no function")
        return Verdict(False, f"no function that parses ({_syntax_error(text or '')})", "does not parse")
    source, name, where = found
    ok, why = sandbox.availability()
    if not ok:
        return Verdict(None, f"not run: {why}", "no sandbox", {"function": name})
    result = sandbox.run_python(source, name, [[lst, t] for lst, t, _, _ in CASES], limits)
    details: dict[str, Any] = {"function": name, "found_in": where}
    if result.report is None:
        return Verdict(False, f"{name}() {result.failure()}", "crashed or limit", details)
    if "load_error" in result.report:
        return Verdict(False, f"defining {name}() failed: {result.report['load_error']}", "error", details)
    failed = []
    for (lst, threshold, expected, what), call in zip(CASES, result.report["calls"]):
        if "error" in call:
            failed.append(f"{name}({lst}, {threshold}) raised {call['error']} ({what})")
        elif call.get("type") not in ("list", "tuple"):
            failed.append(f"{name}({lst}, {threshold}) returned a {call.get('type')}, not a list ({what})")
        elif call.get("value") != expected:
            failed.append(f"{name}({lst}, {threshold}) returned {call.get('value')}, expected {expected} ({what})")
    details["passed"] = len(CASES) - len(failed)
    if failed:
        return Verdict(
            False,
            f"{name}() from {where} fails {len(failed)} of {len(CASES)} tests: " + "; ".join(failed[:3]),
            "fails tests",
            details,
        )
    return Verdict(
        True, f"{name}() from {where} passes all {len(CASES)} tests, the empty list included", "right", details
    )
