"""Faults injected into the real app process and its database server.

  * SIGKILL while a study's outputs are being pre-generated: a restarted app resumes the study,
    generates only what is missing, and no slot holds two outputs.
  * SIGKILL right after a submit was acknowledged: after a restart the rating is there.
  * The PostgreSQL server stopped in the middle of a rating session: the rater gets a clear error
    saying the rating was not saved, nothing half-written is left, and once the server is back the
    same submit goes through (stored once).

Each test starts its own app processes (the shared one is never killed). The PostgreSQL test runs
its own throw-away cluster (initdb/pg_ctl from Debian's postgresql) so it can stop and start it.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest

from arena.store import Store
from tests.support.live_app import ORGANIZER_PASSWORD, GradioHTTP, dep_by_api_name, dep_by_trigger, free_port, start_app
from tests.support.seeding import db_store, invite, seed_study
from ui.rate.view import form as rate_form

pytestmark = pytest.mark.timeout(900)

PROMPTS = ["Name a fruit.", "Name a river."]
METHODS = ["BS-4", "TS-Temp", "TS-Tilted"]
STATS = {"injected": 0, "survived": 0}


@pytest.fixture(scope="module", autouse=True)
def report_faults(artifacts_dir):
    yield
    (artifacts_dir / "faults-summary.json").write_text(json.dumps(STATS))
    print(f"\nfaults injected={STATS['injected']} survived={STATS['survived']}")


def submit_values(scores: list[int], n_responses: int, note: str) -> list:
    return [*rate_form([scores] * n_responses, [note] * n_responses), None]  # no item named: the one on screen


def unlock(client: GradioHTTP, session: str) -> None:
    r = client.call(dep_by_trigger(client, "Organizer password"), [ORGANIZER_PASSWORD], session_hash=session)
    assert r.ok and "Unlocked" in r.raw, r.error


def slots(store: Store, sid: int) -> list[tuple[int, str, int, int, str]]:
    """(item_id, method, sample_index, output_id, text) of every stored output of the study."""
    rows = []
    for item in store.items(sid):
        for o in store.outputs_for_item(item.id):
            rows.append((item.id, o.method, o.sample_index, o.id, o.text))
    return sorted(rows)


def test_sigkill_during_pregeneration_resumes_without_duplicates(tmp_path):
    from arena.engines import model_choices
    from ui import organizer_models
    from ui.organizer.forms import DESIGN_CHOICES, SOURCE_KEYS

    store = db_store(tmp_path)
    first = start_app(tmp_path)
    client = GradioHTTP(first.url, timeout_s=600)
    session = uuid.uuid4().hex[:11]
    unlock(client, session)
    create = dep_by_trigger(client, "Create study and generate its outputs")
    # password, name, source, language, pasted, upload, methods, samples, max_new_tokens, base seed, guidelines,
    # guess question (off), design (1-5 scores), models (the app's alone), perplexity scorer (the first model),
    # rubric, attention items, exclusion rule
    args = [
        ORGANIZER_PASSWORD,
        "Fault study",
        SOURCE_KEYS[1],  # the radios send keys (ui/organizer/forms.py)
        "all",
        "\n".join(PROMPTS),
        None,
        METHODS,
        1,
        8,
        "0",
        "",
        "off",
    ]
    args += [DESIGN_CHOICES[0][1], [model_choices("")[0]], organizer_models.SCORER_FIRST]
    args += ["", 0, []]  # no rubric of its own (the 1-5 form), no attention items, no exclusion rule
    box: dict = {}

    def create_in_background() -> None:
        try:
            box["result"] = client.call(create, args, session_hash=session)
        except Exception as exc:  # the server is killed under this call; its stream breaks
            box["error"] = exc

    worker = threading.Thread(target=create_in_background, daemon=True)
    worker.start()
    total = len(PROMPTS) * len(METHODS)
    deadline = time.monotonic() + 600
    before: list = []
    while time.monotonic() < deadline:
        studies = store.list_studies()
        if studies:
            before = slots(store, studies[0].id)
            if 1 <= len(before) < total:
                break
            assert len(before) < total, "generation finished before the kill: nothing was interrupted"
        assert first.alive(), first.log_tail()
        refused = box.get("error") or (box["result"].error if "result" in box and not box["result"].ok else None)
        assert refused is None, f"the create call failed before any output was stored: {refused}"
        time.sleep(0.05)
    first.kill()
    STATS["injected"] += 1
    worker.join(timeout=60)
    client.close()
    [study] = store.list_studies()
    sid = study.id
    before = slots(store, sid)  # what survived the kill, read after it
    assert 1 <= len(before) < total, f"{len(before)} outputs at the kill"
    assert len(store.items(sid)) == len(PROMPTS)

    second = start_app(tmp_path)
    try:
        client = GradioHTTP(second.url, timeout_s=600)
        session = uuid.uuid4().hex[:11]
        unlock(client, session)
        resumed = client.call(
            dep_by_trigger(client, "Resume generation"), [ORGANIZER_PASSWORD, sid], session_hash=session
        )
        assert resumed.ok, resumed.error
        assert f"{total} of {total} outputs stored ({total - len(before)} generated now)" in resumed.raw, resumed.raw[
            -600:
        ]
        after = slots(store, sid)
        keys = [(i, m, s) for i, m, s, _, _ in after]
        assert len(after) == total and len(set(keys)) == total, after
        assert set(before) <= set(after), "an output stored before the kill changed or vanished"
        assert len(store.items(sid)) == len(PROMPTS) and len(store.list_studies()) == 1
        # Resuming a complete study generates nothing more.
        again = client.call(
            dep_by_trigger(client, "Resume generation"), [ORGANIZER_PASSWORD, sid], session_hash=session
        )
        assert again.ok and "(0 generated now)" in again.raw
        assert slots(store, sid) == after
        assert store.get_study(sid).state == "open"  # the complete draft opened for rating
        STATS["survived"] += 1

        # Second fault on the same data: SIGKILL the moment a submit is acknowledged.
        start, submit = dep_by_api_name(client, "rate_start"), dep_by_api_name(client, "rate_submit")
        rater = f"durable-{uuid.uuid4().hex[:6]}"
        code = invite(store, sid, rater)
        rs = uuid.uuid4().hex[:11]
        opened = client.call(start, [code, None], session_hash=rs)
        assert opened.ok, opened.error
        done = client.call(submit, [code, None, *submit_values([2, 3, 4], len(METHODS), "kept")], session_hash=rs)
        assert done.ok and "Saved" in done.raw, done.error
        second.kill()  # no graceful shutdown: only what was committed survives
        STATS["injected"] += 1
        client.close()
    finally:
        second.kill()

    third = start_app(tmp_path)
    try:
        frame = store.ratings_frame(sid)
        mine = frame[frame["rater"] == rater]
        assert len(mine) == len(METHODS), mine
        assert set(zip(mine.coherence, mine.informativeness, mine.naturalness)) == {(2, 3, 4)}
        client = GradioHTTP(third.url)
        back = client.call(dep_by_api_name(client, "rate_start"), [code, None])
        assert back.ok and "you have rated 1 of 2" in back.raw, back.raw[-400:]
        client.close()
        STATS["survived"] += 1
    finally:
        third.stop()
        store.dispose()


# ---- PostgreSQL stopped mid-study -----------------------------------------------------------------


def _pg_bindir() -> Path | None:
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0
    )
    return found[-1] if found and (found[-1] / "pg_ctl").exists() else None


class PgCluster:
    """A throw-away PostgreSQL cluster on loopback that the test can stop and start."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="arena-fault-pg-"))
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:  # PostgreSQL refuses to run as root
            os.chown(self.dir, pwd.getpwnam("postgres").pw_uid, -1)

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=check, cwd=str(self.dir))

    def init(self) -> None:
        self._run("initdb", "-D", str(self.dir / "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8")

    def start(self) -> None:
        self._run(
            "pg_ctl",
            "-D",
            str(self.dir / "data"),
            "-l",
            str(self.dir / "server.log"),
            "-w",
            "-t",
            "60",
            "-o",
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir}",
            "start",
        )

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop", check=False)

    def createdb(self, name: str) -> str:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def pg_cluster():
    bindir = _pg_bindir()
    if bindir is None:
        pytest.skip("Debian's postgresql is not installed (scripts/services/postgres.sh installs it as root)")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        pytest.skip("running as root without runuser: cannot start PostgreSQL as the postgres user")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("no postgres system user (scripts/services/postgres.sh creates it)")
    cluster = PgCluster(bindir)
    try:
        cluster.init()
        cluster.start()
    except subprocess.CalledProcessError as exc:
        cluster.remove()
        pytest.skip(f"could not start a PostgreSQL cluster: {exc.stderr or exc.stdout}")
    yield cluster
    cluster.remove()


def test_postgres_stopped_mid_study_clear_error_nothing_lost(tmp_path, pg_cluster: PgCluster):
    url = pg_cluster.createdb("arena_fault")
    store = Store(url)
    texts = {m: f"pg answer {k}" for k, m in enumerate(METHODS)}
    sid, _ = seed_study(store, "PG fault study", ["PG prompt"], [texts])
    rater = f"pg-rater-{uuid.uuid4().hex[:6]}"
    code = invite(store, sid, rater)
    earlier = f"pg-early-{uuid.uuid4().hex[:6]}"  # acknowledged before the outage: must survive the restart
    early_code = invite(store, sid, earlier)
    store.dispose()

    app = start_app(tmp_path, extra_env={"DATABASE_URL": url})
    try:
        client = GradioHTTP(app.url, timeout_s=180)
        start, submit = dep_by_api_name(client, "rate_start"), dep_by_api_name(client, "rate_submit")
        session = uuid.uuid4().hex[:11]
        opened = client.call(start, [code, None], session_hash=session)
        assert opened.ok and "pg answer" in opened.raw, opened.error
        values = [code, None, *submit_values([4, 4, 5], len(METHODS), "during outage")]
        early_session = uuid.uuid4().hex[:11]
        assert client.call(start, [early_code, None], session_hash=early_session).ok
        early_values = [early_code, None, *submit_values([3, 3, 3], len(METHODS), "before outage")]
        acknowledged = client.call(submit, early_values, session_hash=early_session)
        assert acknowledged.ok and "Saved" in acknowledged.raw, acknowledged.error

        pg_cluster.stop()
        STATS["injected"] += 1
        failed = client.call(submit, values, session_hash=session)
        assert not failed.ok, "a submit was acknowledged while the database was down"
        message = (failed.error or "").lower()
        assert "not saved" in message or "not been saved" in message, (
            f"the rater was not told clearly that the rating was not saved: {failed.error!r}"
        )
        assert app.alive(), app.log_tail()

        pg_cluster.start()
        check = Store(url)
        assert check.ratings_frame(sid).query("rater == @rater").empty, "a half-written rating was left behind"
        again = client.call(submit, values, session_hash=session)
        assert again.ok and "Saved" in again.raw, again.error
        frame = check.ratings_frame(sid)
        mine = frame[frame["rater"] == rater]
        assert len(mine) == len(METHODS) and set(mine["comment"]) == {"during outage"}
        kept = frame[frame["rater"] == earlier]
        assert len(kept) == len(METHODS) and set(kept["comment"]) == {"before outage"}, (
            "an acknowledged rating was lost"
        )
        check.dispose()
        client.close()
        STATS["survived"] += 1
    finally:
        app.stop()
