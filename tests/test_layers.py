"""The layers go one way: decoders -> arena (core) -> evaluation -> ui -> app.py.

Every import in every module is read (module level and inside functions), and an import of a
higher layer fails this test. Entry points (`__main__` modules, CLIs) may import from any layer."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {"decoders": 0, "arena": 1, "evaluation": 2, "ui": 3, "app": 4}
ENTRY_POINTS = {"decoders/__main__.py", "arena/study_cli.py"}


def layer_of(module: str) -> int | None:
    if module == "ui" or module.startswith("ui."):
        return LAYERS["ui"]
    top = module.split(".")[0]
    return LAYERS.get(top)


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join(base + ([node.module] if node.module else []))
                if not node.module:  # "from . import x": each name may be a submodule
                    found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
                    continue
                found.append((node.lineno, target))
            else:
                found.append((node.lineno, node.module or ""))
    return found


def upward_imports(root: Path = ROOT) -> list[str]:
    wrong = []
    for folder in ("decoders", "arena", "evaluation", "ui"):
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel in ENTRY_POINTS:
                continue
            own = layer_of(module_name(path, root))
            for line, target in imports(path, root):
                theirs = layer_of(target)
                if theirs is not None and own is not None and theirs > own:
                    wrong.append(f"{rel}:{line} imports {target}")
    return wrong


def test_no_module_imports_a_higher_layer():
    scanned = sum(1 for f in ("decoders", "arena", "evaluation", "ui") for _ in (ROOT / f).rglob("*.py"))
    assert scanned > 50
    wrong = upward_imports()
    assert not wrong, "upward imports:\n" + "\n".join(wrong)


def test_the_check_finds_upward_imports_at_any_depth(tmp_path):
    probes = {
        "decoders/probe.py": "def f():\n    from arena.runner import run_methods\n",
        "arena/probe.py": "from ui import rating\n",
        "arena/store/probe.py": "from ...evaluation import human\n",
        "evaluation/probe.py": "import ui.results\n",
        "ui/fine.py": "from evaluation import human\nfrom arena import blind\n",
    }
    for rel, source in probes.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(source)
    assert sorted(upward_imports(tmp_path)) == [
        "arena/probe.py:1 imports ui",
        "arena/store/probe.py:1 imports evaluation",
        "decoders/probe.py:2 imports arena.runner",
        "evaluation/probe.py:1 imports ui.results",
    ]


def late_imports_without_reason(root: Path = ROOT) -> list[str]:
    """Imports inside functions with no comment (on the line or the one above) saying why."""
    found = []
    for folder in ("decoders", "arena", "evaluation", "ui"):
        for path in sorted((root / folder).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            for node in ast.walk(ast.parse("\n".join(lines))):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for inner in ast.walk(node):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)):
                        here, above = lines[inner.lineno - 1], lines[inner.lineno - 2].strip()
                        if "#" not in here and not above.startswith("#"):
                            found.append(f"{path.relative_to(root).as_posix()}:{inner.lineno}: {here.strip()}")
    return sorted(set(found))


def test_imports_are_at_module_level_unless_a_comment_says_why():
    late = late_imports_without_reason()
    assert not late, "imports inside functions without a reason:\n" + "\n".join(late)


def test_the_late_import_check_finds_one(tmp_path):
    (tmp_path / "arena").mkdir()
    (tmp_path / "arena" / "probe.py").write_text(
        "def f():\n    import json\n\n\ndef g():\n    import csv  # late: why\n"
    )
    assert late_imports_without_reason(tmp_path) == ["arena/probe.py:2: import json"]
