"""Run untrusted Python (a model's answer) in a bubblewrap sandbox, never in this process.

    result = run_python(source, payload)   # the harness below runs `source` on `payload` inside

What the sandbox allows (Debian's `bubblewrap`, installed by scripts/services/bwrap.sh):
  * no network: a new, empty network namespace (`--unshare-net`; not even a usable loopback);
  * a read-only view of /usr (and of the Python it runs, if that lives elsewhere) and of the task's
    own folder; everything else of the machine (/home, /root, /work, /etc, the app's database) is
    not there at all. The root and /dev are remounted read-only; the only writable places are two
    small tmpfs mounts with a size (`/tmp`, `/dev/shm`), gone when the run ends. A tmpfs lives in
    the host's memory, so an unsized one (bwrap's own root and /dev are) would lend the code as much
    of it as it cares to write;
  * where the host lets this process make a memory cgroup (v1 or v2, e.g. root in a container), the
    whole sandbox (every process, and the tmpfs pages it wrote) is capped by one limit there
    (`Limits.total_memory_mb`); without one, the cap is per process (address space) times the
    process limit, and `cgroup_state()` says which holds;
  * new user, PID, IPC, UTS and cgroup namespaces, no capabilities, no further user namespaces,
    a new session (no terminal injection), killed with its parent;
  * limits set with `prlimit` before bwrap starts: address space, CPU seconds, file size, open
    files, processes, no core dumps; and a wall-clock limit, after which the whole process group
    is killed;
  * run as root, it first drops to `nobody` (setpriv), so that even the process limit holds (the
    kernel does not count root's processes) and nothing runs as root.

If bubblewrap is missing or cannot create its namespaces (a container without user namespaces,
say), `SandboxUnavailable` says so and why. There is no fallback: the code is then not run at all.

The harness reads the task folder's payload.json, executes the answer's source, calls
`payload["function"]` on each of `payload["cases"]` (a deep copy each time) and prints one line,
MARK + JSON, with each call's return value or error. The answer's own prints go to a buffer.
Comparing the values with the expected ones happens out here, so the answer never sees them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common.errors import UserError

from . import cgroup

MARK = "@@ARENA-TASK-RESULT@@"
NOBODY = 65534

HARNESS = f"""\
import copy, io, json, os, sys
with open("/task/payload.json", encoding="utf-8") as fh:
    payload = json.load(fh)
out = os.dup(1)
sys.stdout = sys.stderr = io.StringIO()
report = {{"calls": []}}
namespace = {{"__name__": "answer"}}
try:
    exec(compile(payload["source"], "<answer>", "exec"), namespace)
    function = namespace[payload["function"]]
except BaseException as exc:
    report["load_error"] = (type(exc).__name__ + ": " + str(exc))[:300]
else:
    for args in payload["cases"]:
        try:
            value = function(*copy.deepcopy(args))
            kind = type(value).__name__
            if isinstance(value, (tuple, range)):
                value = list(value)
            try:
                json.dumps(value)
            except (TypeError, ValueError, RecursionError):
                value = None
            report["calls"].append({{"value": value, "type": kind}})
        except BaseException as exc:
            report["calls"].append({{"error": (type(exc).__name__ + ": " + str(exc))[:300]}})
os.write(out, ("\\n{MARK}" + json.dumps(report) + "\\n").encode())
os._exit(0)
"""


class SandboxUnavailable(UserError):
    """The sandbox cannot run here; the message says why and what to install or allow."""


@dataclass(frozen=True)
class Limits:
    wall_s: float = 10.0
    cpu_s: int = 5
    memory_mb: int = 256
    file_mb: int = 1
    open_files: int = 64
    processes: int = 16  # beyond what the sandbox user already runs
    tmp_mb: int = 16
    shm_mb: int = 1
    total_memory_mb: int = 384  # every process and tmpfs page together, where a cgroup can be made


@dataclass
class SandboxResult:
    report: dict[str, Any] | None  # the harness's report; None if it never wrote one
    returncode: int | None
    timed_out: bool
    stderr: str  # bwrap's and Python's own errors (the answer's prints are not here)

    def killed_by(self) -> int | None:
        """The signal that ended the program, if one did.

        Run directly, a signal shows as a negative return code; inside bwrap its init process exits with
        128 + the signal instead (SIGKILL after the CPU limit's SIGXCPU reads as 137).
        """
        if self.returncode is None:
            return None
        if self.returncode < 0:
            return -self.returncode
        if 128 < self.returncode < 128 + 65:
            return self.returncode - 128
        return None

    def failure(self) -> str:
        """Why there is no report, in words."""
        if self.timed_out:
            return "timed out (an endless loop, or too slow)"
        signum = self.killed_by()
        if signum is not None:
            name = signal.Signals(signum).name if signum in signal.Signals._value2member_map_ else str(signum)
            return f"killed by {name} (a limit: CPU time, memory or file size)"
        tail = self.stderr.strip().splitlines()[-1:] or [""]
        return f"crashed (exit {self.returncode}): {tail[0][:200]}"


def _world_usable(path: Path) -> bool:
    """Can `nobody` reach and run `path` (every folder above it searchable, the file executable)?"""
    try:
        if not path.stat().st_mode & stat.S_IXOTH:
            return False
        return all(p.stat().st_mode & stat.S_IXOTH for p in path.parents)
    except OSError:
        return False


def _interpreter(as_root: bool) -> Path:
    """A Python 3 the sandbox user can run: this one if it may, else the system's."""
    own = Path(os.path.realpath(sys.executable))
    candidates = [own] if not as_root or _world_usable(own) else []
    candidates += [Path(p) for p in ("/usr/bin/python3", "/usr/local/bin/python3") if Path(p).exists()]
    for c in candidates:
        real = Path(os.path.realpath(c))
        if not as_root or _world_usable(real):
            return real
    raise SandboxUnavailable(
        "no Python interpreter that the sandbox user (nobody) may run: install Debian's python3 "
        "(apt-get install python3) or run the app as a user other than root"
    )


def _own_tasks(uid: int) -> int:
    """Processes and threads of `uid` now (what RLIMIT_NPROC counts)."""
    n = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if os.stat(entry.path).st_uid == uid:
                    n += len(os.listdir(os.path.join(entry.path, "task")))
            except OSError:
                continue
    return n


def _system_binds(python: Path) -> list[str]:
    """/usr read-only, the merged-/usr links as links, and the interpreter's own prefix if elsewhere."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        p = Path(top)
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), top]
        elif p.is_dir():
            args += ["--ro-bind", top, top]
    prefix = python.parent.parent
    if not str(prefix).startswith("/usr/") and str(prefix) != "/usr":
        args += ["--ro-bind", str(prefix), str(prefix)]
    return args


def command(task_dir: Path, limits: Limits, extra_ro_binds: tuple[Path, ...] = ()) -> list[str]:
    """The full command line: prlimit, (setpriv to nobody when root,) bwrap, python -I -S harness."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable(
            "bubblewrap is not installed, so generated code is not run: apt-get install bubblewrap "
            "(scripts/services/bwrap.sh does it as root)"
        )
    as_root = os.geteuid() == 0
    python = _interpreter(as_root)
    uid = NOBODY if as_root else os.getuid()
    cmd = [
        shutil.which("prlimit") or "prlimit",
        f"--as={limits.memory_mb * 2**20}",
        f"--cpu={limits.cpu_s}",
        f"--fsize={limits.file_mb * 2**20}",
        f"--nofile={limits.open_files}",
        f"--nproc={_own_tasks(uid) + limits.processes}",
        "--core=0",
        "--",
    ]
    if as_root:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            raise SandboxUnavailable("running as root needs setpriv (util-linux) to drop to nobody; not found")
        cmd += [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    cmd += [bwrap, "--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
    cmd += ["--unshare-cgroup-try", "--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    cmd += [
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "LANG",
        "C.UTF-8",
    ]
    cmd += ["--hostname", "sandbox", *_system_binds(python), "--dev", "/dev"]
    cmd += ["--size", str(limits.shm_mb * 2**20), "--tmpfs", "/dev/shm"]
    cmd += ["--size", str(limits.tmp_mb * 2**20), "--tmpfs", "/tmp", "--ro-bind", str(task_dir), "/task"]
    for path in extra_ro_binds:  # after the tmpfs, so that a folder under /tmp is not hidden by it
        cmd += ["--ro-bind", str(path), str(path)]
    # Last, once every mount point exists: bwrap's root and /dev are tmpfs mounts without a size.
    cmd += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp"]
    cmd += [str(python), "-I", "-S", "-B", "/task/harness.py"]
    return cmd


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def run_python(
    source: str,
    function: str,
    cases: list[list[Any]],
    limits: Limits | None = None,
    extra_ro_binds: tuple[Path, ...] = (),
) -> SandboxResult:
    """Run `function` of `source` on each case inside the sandbox. `extra_ro_binds` shows more host
    folders read-only inside (at the same paths), for tests that check nothing can be written there."""
    limits = limits or Limits()
    with tempfile.TemporaryDirectory(prefix="arena-task-") as folder:
        task_dir = Path(folder) / "task"
        task_dir.mkdir()
        (task_dir / "harness.py").write_text(HARNESS, encoding="utf-8")
        (task_dir / "payload.json").write_text(
            json.dumps({"source": source, "function": function, "cases": cases}), encoding="utf-8"
        )
        for p in (Path(folder), task_dir):
            p.chmod(0o755)  # readable by nobody; the files are 0644 by default
        for f in task_dir.iterdir():
            f.chmod(0o644)
        cmd = command(task_dir, limits, extra_ro_binds)
        group = cgroup.create(limits.total_memory_mb * 2**20)
        if group is not None:
            # The shell joins the cgroup, then becomes prlimit: everything the run starts is inside it.
            cmd = ["/bin/sh", "-c", 'echo $$ >"$0" && exec "$@"', str(group.procs), *cmd]
        try:
            stdout, stderr, returncode, timed_out = _run_command(cmd, Path(folder), limits.wall_s)
        finally:
            if group is not None:
                group.remove()
    if group is not None and group.oom_killed():
        stderr += "\nkilled by the sandbox's memory limit (all its processes and files together)"
    report = None
    if not timed_out:
        line = next((ln for ln in reversed(stdout.splitlines()) if ln.startswith(MARK)), None)
        if line is not None:
            try:
                report = json.loads(line[len(MARK) :])
            except json.JSONDecodeError:
                report = None
    return SandboxResult(report, returncode, timed_out, stderr)


def _run_command(cmd: list[str], folder: Path, wall_s: float) -> tuple[str, str, int | None, bool]:
    """(stdout, stderr, return code, timed out) of `cmd`, its whole process group killed at `wall_s`."""
    # Output goes to files out here (never seen inside); RLIMIT_FSIZE caps their size.
    with open(folder / "out", "w+b") as out, open(folder / "err", "w+b") as err:
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True, close_fds=True
        )
        timed_out = False
        try:
            proc.wait(timeout=wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill(proc)
            proc.wait()
        # Whatever the run left behind in its group (a fork that outlived the harness) goes too.
        _kill(proc)
        out.seek(0)
        err.seek(0)
        return (
            out.read().decode("utf-8", "replace"),
            err.read(20_000).decode("utf-8", "replace"),
            proc.returncode,
            timed_out,
        )


_probe: tuple[bool, str] | None = None
_probe_lock = threading.Lock()


def availability() -> tuple[bool, str]:
    """(True, "") if the sandbox runs here, else (False, why). Probed once per process."""
    global _probe
    with _probe_lock:
        if _probe is None:
            try:
                result = run_python("def f(x):\n    return x + 1\n", "f", [[1]])
            except SandboxUnavailable as exc:
                _probe = (False, str(exc))
            else:
                if result.report == {"calls": [{"value": 2, "type": "int"}]}:
                    _probe = (True, "")
                else:
                    _probe = (False, _explain(result))
        return _probe


def _explain(result: SandboxResult) -> str:
    text = result.stderr.strip()
    hint = ""
    if "namespace" in text.lower() or "operation not permitted" in text.lower():
        hint = (
            " — the kernel or container refuses new user namespaces: allow them "
            "(sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; in Docker, a seccomp "
            "profile that permits clone(CLONE_NEWUSER)), or run the checks elsewhere"
        )
    return f"bubblewrap could not start the sandbox: {text.splitlines()[-1] if text else result.failure()}{hint}"


def require() -> None:
    """Raise `SandboxUnavailable` unless the sandbox runs here."""
    ok, why = availability()
    if not ok:
        raise SandboxUnavailable(why)
