"""SIGKILL the app right after an acknowledged submit; after a restart the rating is there."""

from __future__ import annotations

import pytest
from gradio_client import Client

from arena import studies
from arena.store import Store
from tests.support.live_app import start_app
from tests.support.seeding import invite

pytestmark = pytest.mark.timeout(900)


def test_an_acknowledged_rating_survives_sigkill(tmp_path):
    db = tmp_path / "arena.db"
    store = Store(f"sqlite:///{db}")
    # Outputs are stored directly: this test is about the database surviving, not about generation.
    sid = studies.create_study(store, "Durability", studies.builtin_prompts("en")[:1], max_new_tokens=4)
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
        client.predict(code, api_name="/rate_start")
        radios = [4, 2, 5, 1, 3, 2, 5, 5, 4] + [None] * (3 * (studies.MAX_RESPONSES - 3))
        result = client.predict(
            code, *radios, *["kept", "", ""] + [""] * (studies.MAX_RESPONSES - 3), api_name="/rate_submit"
        )
        assert any(str(v).startswith("Saved") for v in result)  # acknowledged (the status line) ...
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
        view = client.predict(code, api_name="/rate_start")
        assert "Durable Rater" in str(view[0])  # who: the same code opens the same rater after the restart
        assert "rated all 1 items" in str(view[1])
        back = client.predict(code, api_name="/rate_previous")
        values = [v.get("value") if isinstance(v, dict) else v for v in back]
        assert values[3:6] == [4, 2, 5]  # progress, prompt, text A, then its three scores
    finally:
        app.stop()
