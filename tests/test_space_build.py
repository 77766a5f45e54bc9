"""The Space build resolves: requirements.txt together with what a Gradio Space preinstalls
(`gradio[oauth,mcp]==<sdk_version>` and `spaces`) for CPython 3.12 on Linux x86-64, wheels only,
without conflicts. A pip dry-run against the public package index (needs the network; skipped when
the index cannot be reached). The front matter's python_version must be one ZeroGPU offers."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Pure Python, published as an sdist only, no dependencies: pip builds it on the Space. A
# wheels-only cross-platform resolve cannot include it, so it is checked for existence separately.
SDIST_ONLY = {"jieba"}
SPACES_PIN = "spaces==0.51.3"


def front_matter() -> dict[str, str]:
    text = (ROOT / "README.md").read_text()
    block = text.split("---", 2)[1]
    return {k.strip(): v.strip().strip('"') for k, v in (line.split(":", 1) for line in block.strip().splitlines())}


def test_front_matter_targets_python_312_and_the_pinned_gradio():
    fm = front_matter()
    assert fm["python_version"] == "3.12"  # ZeroGPU offers 3.12 and 3.10; our numpy/pandas/scipy pins need >= 3.11
    pinned = dict(
        line.split("==", 1)
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    )
    assert fm["sdk_version"] == pinned["gradio"]


def test_requirements_resolve_with_what_a_space_preinstalls(tmp_path):
    fm = front_matter()
    reqs = [
        line
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#") and line.split("==")[0].strip() not in SDIST_ONLY
    ]
    (tmp_path / "req.txt").write_text("\n".join(reqs) + "\n")
    platforms = [arg for v in range(35, 4, -1) for arg in ("--platform", f"manylinux_2_{v}_x86_64")]
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull)  # the public index, not this machine's mirrors
    env.pop("PIP_CONSTRAINT", None)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--ignore-installed",
        "--only-binary=:all:",
        "--python-version",
        "3.12",
        "--implementation",
        "cp",
        *platforms,
        "--platform",
        "manylinux2014_x86_64",
        "--target",
        str(tmp_path / "target"),
        "--report",
        str(tmp_path / "report.json"),
        "--quiet",
        "-r",
        str(tmp_path / "req.txt"),
        f"gradio[oauth,mcp]=={fm['sdk_version']}",
        SPACES_PIN,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    if proc.returncode != 0 and re.search(
        r"NewConnectionError|Network is unreachable|Temporary failure in name "
        r"resolution|ConnectTimeout|Max retries exceeded",
        proc.stderr,
    ):
        pytest.skip("the package index cannot be reached from here")
    assert proc.returncode == 0, proc.stderr[-3000:]
    installed = {
        i["metadata"]["name"].lower(): i["metadata"]["version"]
        for i in json.loads((tmp_path / "report.json").read_text())["install"]
    }
    for line in reqs:
        name, version = line.split("==")
        name = re.sub(r"\[.*\]", "", name).strip().lower()
        assert installed.get(name) == version.strip(), f"{name}: resolved {installed.get(name)}, pinned {version}"
    assert installed["gradio"] == fm["sdk_version"]
