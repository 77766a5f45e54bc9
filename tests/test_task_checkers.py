"""Article 003's task checkers on right and wrong answers, and the code sandbox under attack: code
that writes outside its folder, opens a socket or runs away fails without doing so."""

from __future__ import annotations

import shutil
import socket
import tempfile
import textwrap
import threading
from pathlib import Path

import pytest

from arena.inputs.paper import PAPER_EN, PAPER_ZH
from arena.inputs.prompts import TASK_SCENARIOS
from evaluation import tasks
from evaluation.tasks import code_task, math_task, sandbox, summary_task

needs_sandbox = pytest.mark.skipif(
    not sandbox.availability()[0], reason=f"no sandbox here: {sandbox.availability()[1]}"
)

# -- the tasks themselves ---------------------------------------------------------------------------


def test_six_task_prompts_two_languages_each_and_a_2800_character_paper():
    assert sorted((s.key, s.language) for s in TASK_SCENARIOS) == sorted(
        (t, lang) for t in tasks.TASKS for lang in ("en", "zh")
    )
    assert 2500 <= len(PAPER_ZH) <= 3100 and 2500 <= len(PAPER_EN) <= 3100
    for paper in (PAPER_ZH, PAPER_EN):  # methods, results, limits, figures with units, a baseline
        for fact in summary_task.KEY_FACTS:
            assert fact.found(paper), fact.key
    assert tasks.scenario_for("  " + TASK_SCENARIOS[0].prompt + "\n").key == "math-cylinder"
    assert tasks.scenario_for("something else") is None and tasks.scenario_for(None) is None


def test_the_routed_decoder_sees_each_task_as_what_it_is():
    from decoders.routing import classify

    assert {(s.key, classify(s.prompt).task) for s in TASK_SCENARIOS} == {
        ("math-cylinder", "math"),
        ("code-indices", "code"),
        ("summary-paper", "summary"),
    }


# -- math -------------------------------------------------------------------------------------------

RIGHT_MATH = [
    "两个半圆底面积 πr² = 9π，侧面一半 πrh = 15π，切面 2rh = 30，所以表面积 = 24π + 30 ≈ 105.40 cm²。",
    "The surface area is 24π + 30 square centimeters.",
    "S = 30 + 24\\pi \\approx 105.4\\,\\text{cm}^2",
    "9π + 15π + 30 = 24π + 30",
    "Using π ≈ 3.14: 28.26 + 47.1 + 30 = 105.36 cm^2",
    "答案：约105.4平方厘米",
    "(24π + 30) cm²",
    "Total: 105.40 cm² (rounded to 2 decimal places)",
]
WRONG_MATH = [
    ("半圆底=3.14×9/2=14.13，矩形切面=2×3×5=30，半圆柱侧=3.14×3×5=47.1，总和=14.13+30+47.1=91.23 cm²。", "wrong value"),
    ("= 3.14×9 + 2×3.14×3×5 = 28.26 + 94.2 = 122.46 cm²", "wrong value"),
    ("24π + 30 ≈ 105.40 cm². If we count one half-disc only we get 91.23 cm².", "wrong value"),
    ("I cannot solve this.", "no number"),
    ("The answer is 105.4 cm³.", "wrong unit"),
    ("半径3cm，高5cm", "wrong value"),
]


@pytest.mark.parametrize("text", RIGHT_MATH)
def test_math_right_answers(text):
    v = tasks.check("math-cylinder", text)
    assert v.success is True, v.reason
    assert "within 0.5% of 24π + 30" in v.reason


@pytest.mark.parametrize("text,kind", WRONG_MATH)
def test_math_wrong_answers_and_why(text, kind):
    v = tasks.check("math-cylinder", text)
    assert v.success is False and v.kind == kind, v.reason


def test_math_the_tolerance_is_half_a_percent():
    assert math_task.check("105.92 cm²").success and not math_task.check("105.94 cm²").success
    assert math_task.check("104.88 cm²").success and not math_task.check("104.86 cm²").success
    assert "13.4% off" in math_task.check("91.23 cm²").reason


def test_math_expression_evaluation():
    def value(text):
        return math_task.final_value(text)[0]

    assert value("24π+30") == pytest.approx(105.398, abs=1e-3)
    assert value("2(3 + 5)") == 16 and value("3.14 × 3²") == pytest.approx(28.26)
    assert value("9 / 2 · π") == pytest.approx(14.137, abs=1e-3) and value("−5 + 8") == 3
    assert value("S = (9π + 15π + 30") == pytest.approx(105.398, abs=1e-3)  # cut off: the parenthesis closes
    assert math_task.final_value("a square of side length 1 (the base)")[1] == "1"  # no dangling "("


# -- summary ------------------------------------------------------------------------------------------

GOOD_ZH = (
    "一季温室试验：土壤湿度触发的番茄滴灌比定时灌溉节水23%（3120对4050立方米/公顷），产量17.8对18.1公斤/平方米，"
    "差异不显著（p=0.41），水分生产率提高28%。局限：仅一个生长季，传感器漂移3.5个百分点，17%节点失灵。"
)
GOOD_EN = (
    "Sensor-triggered drip irrigation used 23% less water than the farm's timer (3,120 vs 4,050 m³/ha); "
    "yield 17.8 vs 18.1 kg/m², not significant; limits: one season, sensor drift."
)


@pytest.mark.parametrize("text", [GOOD_ZH, GOOD_EN, "Water use fell 23% against a timer schedule; yield 17.8 kg/m²."])
def test_summary_right_answers(text):
    v = tasks.check("summary-paper", text)
    assert v.success is True, v.reason
    assert f"{len(text.strip())} characters (limit 200)" in v.reason


def test_summary_wrong_answers_and_why():
    article_greedy = "本文研究了新型催化剂。实验表明性能提升。存在一些局限。未来工作将改进。"
    v = tasks.check("summary-paper", article_greedy)
    assert v.success is False and v.kind == "misses key facts" and "keeps 0 of 5" in v.reason
    too_long = tasks.check("summary-paper", GOOD_EN + " " + GOOD_EN)
    assert too_long.success is False and too_long.kind == "too long" and "keeps 4 of 5" in too_long.reason
    no_water = tasks.check("summary-paper", "Against the timer, yield was 17.8 vs 18.1 kg/m²; productivity +28%.")
    assert no_water.success is False and "misses water −23%" in no_water.reason
    invented = tasks.check("summary-paper", "Water use fell 23% (vs timer); yield 17.8 kg/m²; energy down 37%.")
    assert invented.success is False and invented.kind == "invented figures" and "37" in invented.reason
    assert tasks.check("summary-paper", "   ").kind == "empty"


def test_summary_counts_characters_not_bytes_or_tokens():
    text = "节" * 200
    assert summary_task.check(text).details["characters"] == 200
    assert summary_task.check(text + "水").kind == "too long"


# -- code: extraction and tests -------------------------------------------------------------------------

LOOP = """Here it is:

```python
def find_indices(lst, threshold):
    result = []
    for i in range(len(lst)):
        if lst[i] > threshold:
            result.append(i)
    return result

print(find_indices([1, 5, 3], 2))
```
"""


@needs_sandbox
@pytest.mark.parametrize(
    "text",
    [
        LOOP,
        "```python\ndef f(lst, t):\n    return [i for i, x in enumerate(lst) if x > t]\n```",
        "def f(lst, t):\n    return [i for i, x in enumerate(lst) if x > t]\n\nThis is O(n).",
        "```python\nfrom typing import List\n\ndef f(xs: List[float], t: float) -> List[int]:\n    return [i for i, x in enumerate(xs) if x > t]\n",  # cut off: no closing fence
        "```py\ndef helper_first(lst, t):\n    return tuple(i for i, x in enumerate(lst) if x > t)\n\ndef other():\n    pass\n```",
    ],
)
def test_code_right_answers(text):
    v = tasks.check("code-indices", text)
    assert v.success is True, v.reason
    assert "passes all 7 tests, the empty list included" in v.reason


@needs_sandbox
@pytest.mark.parametrize(
    "text,kind,words",
    [
        (
            "def f(lst, t):\n    return [i for i, x in enumerate(lst) if x >= t]",
            "fails tests",
            "elements equal to the threshold",
        ),
        (
            "```python\ndef f(lst, t):\n    if not lst:\n        return None\n    return [i for i, x in enumerate(lst) if x > t]\n```",
            "fails tests",
            "the empty list",
        ),
        (
            "```python\ndef f(lst, t):\n    return (i for i, x in enumerate(lst) if x > t)\n```",
            "fails tests",
            "a generator, not a list",
        ),
        ("```python\ndef f(lst, t):\n    return [x for x in lst if x > t]\n```", "fails tests", "returned [5, 7]"),
        ("```python\ndef f(lst, t):\n    return lst[0]\n```", "fails tests", "IndexError"),
        ("```python\nimport numpy_not_installed\ndef f(lst, t):\n    return []\n```", "error", "ModuleNotFoundError"),
        ("```python\ndef f(lst, t):\n    while True:\n        pass\n```", "crashed or limit", ""),
    ],
)
def test_code_wrong_answers_and_why(text, kind, words):
    v = tasks.check("code-indices", text)
    assert v.success is False and v.kind == kind, v.reason
    assert words in v.reason


def test_code_that_does_not_parse_or_is_missing_never_reaches_the_sandbox(monkeypatch):
    monkeypatch.setattr(sandbox, "run_python", lambda *a, **k: pytest.fail("the sandbox ran"))
    v = tasks.check("code-indices", "```python\ndef f(lst, t)\n    return []\n```")
    assert v.success is False and v.kind == "does not parse" and "expected ':'" in v.reason
    assert tasks.check("code-indices", "Use a list comprehension.").kind == "no function"


def test_code_runs_only_the_first_function_and_the_imports():
    source, name, where = code_task.extract(LOOP)
    assert name == "find_indices" and where == "code block 1" and "print(" not in source
    source, name, _ = code_task.extract("```python\nimport os\nos.remove('x')\ndef g(a, b):\n    return []\n```")
    assert source == "import os\ndef g(a, b):\n    return []\n" and name == "g"


# -- the sandbox under attack ---------------------------------------------------------------------------


def _run(body: str, **kw):
    source = "def f(lst, t):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    return sandbox.run_python(source, "f", [[[], 0]], **kw)


@needs_sandbox
def test_writing_outside_its_folder_fails_and_nothing_is_written(tmp_path):
    """The host folder is visible read-only inside (the strongest case: the path exists), and
    another host path is not visible at all; neither gets a file. /tmp inside is writable."""
    # pytest's tmp_path sits below 0700 folders the sandbox user cannot enter: a folder of our own
    shown, hidden = Path(tempfile.mkdtemp(prefix="arena-shown-")), tmp_path / "hidden"
    shown.chmod(0o755)
    hidden.mkdir()
    body = f"""
    out = []
    for path in ({str(shown / "escape.txt")!r}, {str(hidden / "escape.txt")!r}, "/usr/escape.txt", "/task/harness.py"):
        try:
            with open(path, "w") as fh:
                fh.write("escaped")
            out.append("wrote " + path)
        except OSError as exc:
            out.append(type(exc).__name__ + " " + str(exc.errno))
    with open("/tmp/scratch.txt", "w") as fh:
        fh.write("ok")
    out.append(open("/tmp/scratch.txt").read())
    return out
    """
    try:
        result = _run(body, extra_ro_binds=(shown,))
        outcome = result.report["calls"][0]["value"]
        assert not any(o.startswith("wrote") for o in outcome), outcome
        assert outcome[0] == "OSError 30" and outcome[1].startswith("FileNotFoundError") and outcome[-1] == "ok"
        assert outcome[2] == "OSError 30" and outcome[3] == "OSError 30"  # read-only: errno EROFS
        assert not (shown / "escape.txt").exists() and not (hidden / "escape.txt").exists()
        assert not Path("/usr/escape.txt").exists()
    finally:
        shutil.rmtree(shown, ignore_errors=True)


@needs_sandbox
def test_opening_a_socket_fails_and_no_connection_arrives():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    arrived = []

    def accept():
        try:
            arrived.append(server.accept())
        except OSError:
            pass

    listener = threading.Thread(target=accept)
    listener.start()
    body = f"""
    import socket
    out = []
    for host in ("127.0.0.1", "8.8.8.8"):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect((host, {port}))
            out.append("connected " + host)
        except OSError as exc:
            out.append(type(exc).__name__)
        finally:
            s.close()
    return out
    """
    try:
        result = _run(body)
    finally:
        listener.join()
        server.close()
    outcome = result.report["calls"][0]["value"]
    assert not any(o.startswith("connected") for o in outcome), outcome
    assert arrived == []


@needs_sandbox
def test_what_the_sandbox_sees_and_its_limits():
    body = """
    import os, resource
    seen = sorted(os.listdir("/"))
    forks = 0
    try:
        for _ in range(200):
            if os.fork() == 0:
                import time
                time.sleep(2)
                os._exit(0)
            forks += 1
    except OSError:
        pass
    try:
        bytearray(2 * 2**30)
        memory = "allocated 2 GiB"
    except MemoryError:
        memory = "MemoryError"
    return [seen, os.path.exists("/etc/passwd"), os.path.exists("/root"), forks, memory, os.getuid()]
    """
    seen, passwd, root, forks, memory, uid = _run(body).report["calls"][0]["value"]
    assert "etc" not in seen and "home" not in seen and "work" not in seen and not passwd and not root
    assert forks < 200 and memory == "MemoryError"


@needs_sandbox
def test_an_endless_loop_is_killed_within_the_wall_limit():
    result = _run("while True:\n    pass\n", limits=sandbox.Limits(wall_s=2, cpu_s=1))
    assert result.report is None and ("timed out" in result.failure() or "killed" in result.failure())


@needs_sandbox
def test_the_answers_prints_cannot_fake_the_report():
    body = f"""
    print({sandbox.MARK!r} + '{{"calls": [{{"value": [0], "type": "list"}}]}}')
    return [1]
    """
    assert _run(body).report["calls"] == [{"value": [1], "type": "list"}]


def test_without_bubblewrap_the_code_is_not_run_and_the_verdict_says_so(monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None if name == "bwrap" else f"/usr/bin/{name}")
    monkeypatch.setattr(sandbox, "_probe", None)
    ran = []
    monkeypatch.setattr(sandbox.subprocess, "Popen", lambda *a, **k: ran.append(a) or pytest.fail("ran code"))
    with pytest.raises(sandbox.SandboxUnavailable, match="bubblewrap is not installed"):
        sandbox.require()
    v = tasks.check("code-indices", "def f(lst, t):\n    return []\n")
    assert v.success is None and v.kind == "no sandbox" and v.reason.startswith("not run: bubblewrap is not installed")
    assert ran == []
    monkeypatch.setattr(sandbox, "_probe", None)  # the next test probes afresh


def test_when_bwrap_cannot_create_namespaces_the_sandbox_refuses_and_explains(monkeypatch):
    failing = sandbox.SandboxResult(None, 1, False, "bwrap: No permissions to create new namespace, likely because ...")
    monkeypatch.setattr(sandbox, "run_python", lambda *a, **k: failing)
    monkeypatch.setattr(sandbox, "_probe", None)
    ok, why = sandbox.availability()
    assert not ok and "No permissions to create new namespace" in why and "user namespaces" in why
    monkeypatch.setattr(sandbox, "_probe", None)


def test_a_signal_death_reads_as_killed_whether_direct_or_through_bwrap():
    direct = sandbox.SandboxResult(report=None, returncode=-9, timed_out=False, stderr="")
    wrapped = sandbox.SandboxResult(report=None, returncode=137, timed_out=False, stderr="")
    plain = sandbox.SandboxResult(report=None, returncode=1, timed_out=False, stderr="Traceback\nValueError: x")
    assert direct.killed_by() == wrapped.killed_by() == 9
    assert "killed by SIGKILL" in direct.failure() and "killed by SIGKILL" in wrapped.failure()
    assert plain.killed_by() is None and plain.failure() == "crashed (exit 1): ValueError: x"


@needs_sandbox
def test_attack_the_sandbox_cannot_fill_the_hosts_memory_through_its_filesystems():
    """Issue 32, route 5: on main b69a925 `/`, `/dev` and `/dev/shm` inside were writable tmpfs mounts
    without a size, so one check wrote 1,000 MiB of the host's memory in 3.3 s. Now the root and /dev
    are read-only and the two writable mounts have a size."""
    body = """
    written = {}
    chunk = b"x" * 2**20
    for folder in ("/", "/dev", "/dev/shm", "/tmp"):
        n = 0
        try:
            with open(folder.rstrip("/") + "/fill", "wb") as fh:
                for _ in range(1000):
                    fh.write(chunk)
                    fh.flush()
                    n += 1
        except OSError:
            pass
        written[folder] = n
    return written
    """
    result = _run(body, limits=sandbox.Limits(file_mb=2000, wall_s=60, cpu_s=30))
    written = result.report["calls"][0]["value"]
    limits = sandbox.Limits()
    assert written["/"] == 0 and written["/dev"] == 0, written
    assert written["/dev/shm"] <= limits.shm_mb and written["/tmp"] <= limits.tmp_mb, written


WHOLE_MEMORY_BODY = """
import os, time
children = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        hold = b"x" * (150 * 2**20)  # written, so every page is really there
        time.sleep(4)
        os._exit(0 if len(hold) else 1)
    children.append(pid)
survived = 0
for pid in children:
    _, status = os.waitpid(pid, 0)
    survived += os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
return survived
"""


@needs_sandbox
def test_attack_many_processes_cannot_add_up_past_the_sandboxs_memory_cap():
    """Four processes of 150 MiB each stay under the per-process limit (256 MiB) but not under the
    cap on the sandbox as a whole (384 MiB), where this host lets the app make a memory cgroup."""
    if not sandbox.cgroup.state().startswith("as a whole"):
        pytest.skip(f"no memory cgroup can be made here: {sandbox.cgroup.state()}")
    result = _run(WHOLE_MEMORY_BODY, limits=sandbox.Limits(wall_s=60, cpu_s=30))
    survived = result.report["calls"][0]["value"] if result.report else 0
    assert survived <= 2, (survived, result.stderr[-500:])
    generous = _run(WHOLE_MEMORY_BODY, limits=sandbox.Limits(wall_s=60, cpu_s=30, total_memory_mb=1024))
    assert generous.report["calls"][0]["value"] == 4  # the control: the same code under a larger cap


def test_no_sandbox_cgroup_is_left_behind():
    before = set(sandbox.cgroup.ROOT.glob(f"**/{sandbox.cgroup.PREFIX}*")) if sandbox.cgroup.ROOT.exists() else set()
    state = sandbox.cgroup.state()
    after = set(sandbox.cgroup.ROOT.glob(f"**/{sandbox.cgroup.PREFIX}*")) if sandbox.cgroup.ROOT.exists() else set()
    assert after <= before, state
