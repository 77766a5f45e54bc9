"""The app started with `--engine llamacpp` serves Compare and a study end to end on the embedded
model's GGUF (issue 38), over the same HTTP queue a browser uses."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.support.live_app import ORGANIZER_PASSWORD, GradioHTTP, dep_by_api_name, dep_by_trigger, start_app
from tests.support.seeding import db_store

pytestmark = pytest.mark.timeout(900)

METHODS = ["BS-4", "TS-Temp", "TS-Tilted"]
LABEL = "(llama.cpp, GGUF Q4_1 weights)"


def test_compare_and_a_study_run_on_llamacpp(tmp_path):
    from ui import organizer_models
    from ui.organizer.forms import DESIGN_CHOICES, SOURCE_KEYS

    # one thread: on a busy two-core machine llama.cpp's spinning barriers make two threads crawl
    # (tests/test_engine_llamacpp.py); serving end to end does not depend on it
    app = start_app(tmp_path, extra_env={"OMP_NUM_THREADS": "1"}, args=["--engine", "llamacpp"])
    client = GradioHTTP(app.url, timeout_s=600)
    try:
        assert LABEL in json.dumps(client.config())  # Compare's header names the engine and the weights
        run = dep_by_api_name(client, "compare")
        comps = client.components()
        controls = [comps[c]["props"].get("value") for c in client.dependencies()[run]["inputs"][5:]]
        compared = client.call(run, ["Name a river in Europe.", METHODS, False, 0, 8, *controls])
        assert compared.ok, compared.error
        assert all(m in compared.raw for m in METHODS)

        session = uuid.uuid4().hex[:11]
        unlocked = client.call(dep_by_trigger(client, "Organizer password"), [ORGANIZER_PASSWORD], session_hash=session)
        assert unlocked.ok and "Unlocked" in unlocked.raw, unlocked.error
        prompts = "Name a fruit.\nName a colour."
        args = [
            ORGANIZER_PASSWORD,
            "llama.cpp study",
            SOURCE_KEYS[1],
            "all",
            prompts,
            None,
            METHODS,
            1,
            8,
            "0",
            "",
            "off",
        ]
        args += [DESIGN_CHOICES[0][1], ["smollm2-135m"], organizer_models.SCORER_FIRST]
        args += ["", 0, []]  # no rubric of its own (the 1-5 form), no attention items, no exclusion rule
        created = client.call(
            dep_by_trigger(client, "Create study and generate its outputs"), args, session_hash=session
        )
        assert created.ok, created.error
        assert "6 of 6 outputs stored" in created.raw, created.raw[-600:]
    finally:
        client.close()
        app.stop()
    store = db_store(tmp_path)
    [study] = store.list_studies()
    outputs = [o for item in store.items(study.id) for o in store.outputs_for_item(item.id)]
    assert len(outputs) == 6 and {o.method for o in outputs} == set(METHODS)
    for o in outputs:
        assert o.model.endswith(LABEL) and json.loads(o.settings)["engine"]["name"] == "llamacpp", (o.model, o.settings)
        assert o.latency_ms and o.latency_ms > 0 and o.text.strip()
