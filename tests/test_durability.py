"""SIGKILL the app right after an acknowledged submit; after a restart the rating is there."""

from __future__ import annotations

import pytest
from gradio_client import Client

from arena import studies
from arena.rating.study_spec import StudySpec
from arena.store import Store
from tests.support.live_app import start_app
from tests.support.seeding import invite

pytestmark = pytest.mark.timeout(900)


def test_an_acknowledged_rating_survives_sigkill(tmp_path):
    db = tmp_path / "arena.db"
    store = Store(f"sqlite:///{db}")
    # Outputs are stored directly: this test is about the database surviving, not about generation.
    sid = studies.create_study(store, StudySpec("Durability", studies.builtin_prompts("en")[:1], max_new_tokens=4))
    [item] = store.items(sid)
    for method in ("BS-4", "TS-Temp", "TS-Tilted"):
        store.add_output(
            item.id, method, 0, text=f"a response ({len(method)})", settings={}, seed=0, model="m", new_tokens=4
        )
    studies.open_study(store, sid)  # a draft opens once every output is stored
    code = invite(store, sid, "Durable Rater")
    store.dispose()

    app = start_app(tmp_path)
    try:
        client = Client(app.url, verbose=False)
        page = client.predict(invite_code=code, api_name="/start_rating")
        dims = ("coherence", "informativeness", "naturalness")
        scores = {"A": dict(zip(dims, (4, 2, 5))), "B": dict(zip(dims, (1, 3, 2))), "C": dict(zip(dims, (5, 5, 4)))}
        result = client.predict(
            invite_code=code, item=page["item"], scores=scores, comments={"A": "kept"}, api_name="/submit_scores"
        )
        assert result["status"].startswith("Saved")  # acknowledged (the status line) ...
        app.kill()  # ... then SIGKILL at once: no shutdown, no flush, no checkpoint
        assert app.proc.returncode == -9
    finally:
        app.stop()

    app = start_app(tmp_path)
    try:
        store = Store(f"sqlite:///{db}")
        frame = store.ratings_frame(sid).sort_values("position")
        assert len(frame) == 3 and set(frame.rater) == {"Durable Rater"}
        assert [tuple(r) for r in frame[["coherence", "informativeness", "naturalness"]].to_numpy()] == [
            (4, 2, 5),
            (1, 3, 2),
            (5, 5, 4),
        ]
        assert frame.iloc[0].comment == "kept"
        store.dispose()
        # and the restarted app shows the rater their saved scores
        client = Client(app.url, verbose=False)
        view = client.predict(invite_code=code, api_name="/start_rating")
        assert "rated all 1 items" in view["progress"]  # the same code opens the same rater after the restart
        back = client.predict(invite_code=code, api_name="/previous_item")
        assert (
            back["responses"][0]["scores"] == dict(zip(dims, (4, 2, 5))) and back["responses"][0]["comment"] == "kept"
        )
    finally:
        app.stop()
