"""The layers go one way: common -> decoders -> arena (core) -> evaluation -> ui -> app.py; no import circles;
no module uses another module's private names.

Every import in every module is read (module level and inside functions), and an import of a
higher layer fails this test. Entry points (`__main__` modules, CLIs) may import from any layer.
An import circle fails it however it is dodged (a late import inside a function counts), and so
does `_name` of one project module used in another (`from m import _x`, or `m._x`)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {"common": 0, "decoders": 1, "arena": 2, "evaluation": 3, "ui": 4, "app": 5}
ENTRY_POINTS = {"decoders/__main__.py", "arena/studies/__main__.py", "arena/engines/vllm/__main__.py"}


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
    for folder in ("common", "decoders", "arena", "evaluation", "ui"):
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
    scanned = sum(1 for f in ("common", "decoders", "arena", "evaluation", "ui") for _ in (ROOT / f).rglob("*.py"))
    assert scanned > 50
    wrong = upward_imports()
    assert not wrong, "upward imports:\n" + "\n".join(wrong)


def test_the_check_finds_upward_imports_at_any_depth(tmp_path):
    probes = {
        "common/probe.py": "from decoders import errors\n",
        "decoders/probe.py": "def f():\n    from arena.runs.runner import run_methods\n",
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
        "common/probe.py:1 imports decoders",
        "decoders/probe.py:2 imports arena.runs.runner",
        "evaluation/probe.py:1 imports ui.results",
    ]


def late_imports_without_reason(root: Path = ROOT) -> list[str]:
    """Imports inside functions with no comment (on the line or the one above) saying why."""
    found = []
    for folder in ("common", "decoders", "arena", "evaluation", "ui"):
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


# ---- import circles and private names ---------------------------------------------------------------

SCANNED = ("common", "decoders", "arena", "evaluation", "ui", "serving")

# Known circles still to break, each with why it is there. An entry that no longer matches a circle
# fails the test too, so the list only shrinks.
KNOWN_CIRCLES: dict[frozenset[str], str] = {}
# Known uses of another module's private names, as "importer uses module._name", with why.
KNOWN_PRIVATE_USES: dict[str, str] = {}


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    files = [p for folder in SCANNED for p in sorted((root / folder).rglob("*.py"))]
    if (root / "app.py").is_file():
        files.append(root / "app.py")
    return {module_name(p, root): p for p in files}


def _target(node: ast.ImportFrom, name: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = (name if is_package else name.rpartition(".")[0]).split(".")
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules its import statements run, wherever they stand (a function body
    included). Importing `a.b.c` runs the packages `a.b` and `a` first, so those count too, except
    the importer's own packages (which are already running when it runs)."""
    modules = project_modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _target(node, name, path.name == "__init__.py")
                targets.add(base)
                targets.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules)
        runs = set()
        for target in targets:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                ran = ".".join(parts[:i])
                if ran in modules and ran != name and not name.startswith(ran + "."):
                    runs.add(ran)
        graph[name] = runs
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(frozenset(group))
    return found


def private_uses(root: Path = ROOT) -> list[str]:
    """Every `_name` (not a dunder) of one project module used in another: imported by name, or read
    as an attribute of a name bound to that module."""
    modules = project_modules(root)
    found = set()
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound: dict[str, str] = {}  # local name -> the project module it is
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    bound[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
            elif isinstance(node, ast.ImportFrom):
                base = _target(node, name, path.name == "__init__.py")
                for alias in node.names:
                    if f"{base}.{alias.name}" in modules:
                        bound[alias.asname or alias.name] = f"{base}.{alias.name}"
                    elif base in modules and _private(alias.name):
                        found.add(f"{name} uses {base}.{alias.name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                chain, value = [], node.value
                while isinstance(value, ast.Attribute):
                    chain.append(value.attr)
                    value = value.value
                if isinstance(value, ast.Name) and value.id in bound:
                    owner = ".".join([bound[value.id], *reversed(chain)])
                    if owner in modules and owner != name:
                        found.add(f"{name} uses {owner}.{node.attr}")
    return sorted(found)


def _private(attr: str) -> bool:
    return attr.startswith("_") and not attr.startswith("__") and attr != "_"


def test_no_import_circles():
    circles = import_circles(import_graph())
    unknown = [sorted(c) for c in circles if c not in KNOWN_CIRCLES]
    assert not unknown, "import circles:\n" + "\n".join(" <-> ".join(c) for c in unknown)
    gone = [sorted(c) for c in KNOWN_CIRCLES if c not in circles]
    assert not gone, "no longer circles; take them off KNOWN_CIRCLES:\n" + "\n".join(map(str, gone))


def test_no_private_names_used_across_modules():
    uses = private_uses()
    unknown = [u for u in uses if u not in KNOWN_PRIVATE_USES]
    assert not unknown, "private names used from other modules:\n" + "\n".join(unknown)
    gone = [u for u in KNOWN_PRIVATE_USES if u not in uses]
    assert not gone, "fixed; take them off KNOWN_PRIVATE_USES:\n" + "\n".join(gone)


def test_the_circle_check_finds_late_and_package_circles(tmp_path):
    probes = {
        "arena/__init__.py": "",
        "arena/a.py": "from . import b\n",
        "arena/b.py": "def f():\n    from .a import g  # late\n",  # a late import is still a circle
        "arena/c.py": "from .pkg import inner\n",
        "arena/pkg/__init__.py": "from .inner import x\n",  # the package runs inner
        "arena/pkg/inner.py": "from ..d import y\n",
        "arena/d.py": "import arena.c\n",
        "arena/pkg/sibling.py": "from . import inner\n",  # its own package is no circle
        "arena/e.py": "from .pkg.sibling import z\n",  # runs arena.pkg, which runs inner -> d -> c -> pkg
    }
    for rel, source in probes.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(source)
    circles = sorted(sorted(c) for c in import_circles(import_graph(tmp_path)))
    assert circles == [
        ["arena.a", "arena.b"],
        ["arena.c", "arena.d", "arena.pkg", "arena.pkg.inner"],
    ]


def test_the_private_check_finds_imports_and_attributes(tmp_path):
    probes = {
        "arena/__init__.py": "",
        "arena/owner.py": "_secret = 1\n\ndef _helper():\n    return _secret\n",
        "arena/by_name.py": "from .owner import _helper\n",
        "arena/by_module.py": "from . import owner\n\nx = owner._secret\n",
        "arena/dotted.py": "import arena.owner\n\ny = arena.owner._helper()\n",
        "arena/fine.py": "from . import owner\n\nclass K:\n    _own = 1\n\nz = K._own, owner.__name__, K()._own\n",
    }
    for rel, source in probes.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(source)
    assert private_uses(tmp_path) == [
        "arena.by_module uses arena.owner._secret",
        "arena.by_name uses arena.owner._helper",
        "arena.dotted uses arena.owner._helper",
    ]


# ---- function length ------------------------------------------------------------------------------

LENGTH_SCANNED = ("app.py", "decoders", "arena", "evaluation", "ui", "serving")
LONGEST, LONG, MOST_LONG = 120, 80, 8  # issue 33: none over 120 lines, at most 8 over 80


def long_functions(root: Path = ROOT, over: int = LONG) -> list[tuple[int, str]]:
    """(lines, "path:line name") of every function (nested ones too) longer than `over` lines."""
    found = []
    for name in LENGTH_SCANNED:
        top = root / name
        for path in [top] if top.is_file() else sorted(top.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > over:
                        found.append((lines, f"{path.relative_to(root).as_posix()}:{node.lineno} {node.name}"))
    return sorted(found, reverse=True)


def test_no_function_is_too_long():
    long = long_functions()
    too_long = [f"{n} lines: {where}" for n, where in long if n > LONGEST]
    assert not too_long, f"functions over {LONGEST} lines:\n" + "\n".join(too_long)
    listing = "\n".join(f"{n} lines: {where}" for n, where in long)
    assert len(long) <= MOST_LONG, f"{len(long)} functions over {LONG} lines (at most {MOST_LONG}):\n{listing}"


def test_the_length_check_counts_nested_functions(tmp_path):
    (tmp_path / "ui").mkdir()
    body = "".join(f"        x{k} = {k}\n" for k in range(90))
    (tmp_path / "ui" / "probe.py").write_text(f"def build():\n    def handler():\n{body}    return handler\n")
    assert [where for _, where in long_functions(tmp_path)] == ["ui/probe.py:1 build", "ui/probe.py:2 handler"]


def top_level_modules(package: Path) -> list[str]:
    """A package's own modules and sub-packages (data folders and caches are not modules)."""
    return sorted(
        p.name
        for p in package.iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py") or (p.is_dir() and (p / "__init__.py").exists())
    )


def test_arena_is_a_handful_of_packages_by_job_each_saying_its_job():
    entries = top_level_modules(ROOT / "arena")
    assert len(entries) <= 12, entries
    for name in entries:
        init = ROOT / "arena" / name / "__init__.py"
        if init.exists():
            assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), f"arena/{name} says no job"


def test_the_module_count_sees_packages_and_modules_not_data(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "data").mkdir()
    (tmp_path / "one.py").write_text("")
    (tmp_path / "__init__.py").write_text("")
    assert top_level_modules(tmp_path) == ["one.py", "pkg"]
