"""Invite codes, the study lifecycle, names and throttling: the library under the Rate tab.

Each test is one way a curious rater tried to get in or learn something, and what stops it now.
"""

from __future__ import annotations

import math

import pytest
from sqlalchemy import text

from arena import studies
from arena.access import invites, throttle
from arena.rating import blind
from arena.rating.study_spec import StudySpec
from arena.store import clean_rater_name
from common.errors import UserError
from ui.safe import md_text, toast

METHODS = ["BS-4", "TS-Temp", "TS-Tilted"]


def make_study(store, name="invite test", n_items=3, state="open"):
    sid = store.create_study(name, methods=METHODS, max_new_tokens=8, state=state)
    iids = store.add_items(sid, [{"prompt": f"{name} prompt {k}", "scenario": "s"} for k in range(n_items)])
    for iid in iids:
        for m in METHODS:
            store.add_output(iid, m, 0, text=f"{name} {iid} {m} text", settings={}, seed=1, model="m", new_tokens=3)
    return sid


def all_scores(view, value=3):
    return [[value] * 3 for _ in view.responses], [None] * len(view.responses)


def test_a_code_has_at_least_128_bits_and_only_its_hash_is_stored(store):
    sid = make_study(store)
    [ann] = invites.invite(store, sid, ["ann"])
    assert len(ann.code) >= 32 and math.log2(64) * len(ann.code) >= 128  # urlsafe base64: 6 bits a character
    assert ann.link.endswith(f"/?invite={ann.code}")
    with store.read() as conn:
        tables = [
            r[0]
            for r in conn.execute(
                text(
                    "SELECT name FROM sqlite_master WHERE type='table'"
                    if store.dialect == "sqlite"
                    else "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
                )
            )
        ]
        dump = " ".join(str(row) for t in tables for row in conn.execute(text(f'SELECT * FROM "{t}"')))
    assert ann.code not in dump and invites.hash_code(ann.code) in dump


def test_a_name_is_not_a_password(store):
    sid = make_study(store)
    [ann] = invites.invite(store, sid, ["alice"])
    view, _ = blind.open_with_code(store, ann.code)
    blind.submit_slots_with_code(store, ann.code, view.item, *all_scores(view, 5))
    raters_before = len(store.enrolments(sid))
    for guess in (
        "alice",
        "Alice",
        "ａｌｉｃｅ",
        "alice\u200b",
        ann.code[:-1],
        ann.code + "x",
        "",
        None,
        7,
        "x" * 10_000,
        "../../etc/passwd",
        "<script>",
    ):
        with pytest.raises(UserError) as err:
            blind.open_with_code(store, guess)
        assert str(err.value) == invites.INVALID  # one message: nothing tells whether a code exists
        with pytest.raises(UserError):
            blind.submit_slots_with_code(store, guess, view.item, *all_scores(view, 1))
    assert len(store.enrolments(sid)) == raters_before  # guesses create no raters
    assert set(store.ratings_frame(sid)["coherence"]) == {5}  # and overwrite nothing


def test_revoked_and_replaced_codes_stop_working_and_ratings_stay(store):
    sid = make_study(store)
    [old] = invites.invite(store, sid, ["ben"])
    view, _ = blind.open_with_code(store, old.code)
    blind.submit_slots_with_code(store, old.code, view.item, *all_scores(view, 4))
    [new] = invites.invite(store, sid, ["ben"])  # a new code replaces the old one; ben keeps his place
    with pytest.raises(UserError, match="not valid"):
        blind.open_with_code(store, old.code)
    again, _ = blind.open_with_code(store, new.code, 1)
    assert [r.scores["coherence"] for r in again.responses] == [4, 4, 4]
    assert invites.revoke(store, sid, "ben") is True
    with pytest.raises(UserError) as err:
        blind.open_with_code(store, new.code)
    assert str(err.value) == invites.INVALID
    assert len(store.ratings_frame(sid)) == 3


def test_a_code_opens_its_own_study_only(store):
    first, second = make_study(store, "first"), make_study(store, "second")
    [code_a] = invites.invite(store, first, ["ann"])
    [code_b] = invites.invite(store, second, ["ann"])
    view_b, _ = blind.open_with_code(store, code_b.code)
    view_a, _ = blind.open_with_code(store, code_a.code)
    assert view_a.prompt.startswith("first") and view_b.prompt.startswith("second")
    with pytest.raises(UserError, match="unknown item"):  # ann's first-study code on a second-study item
        blind.submit_slots_with_code(store, code_a.code, view_b.item, *all_scores(view_b))


def test_lifecycle_rating_only_while_open_and_mapping_only_after(store):
    sid = make_study(store, state="draft")
    [ann] = invites.invite(store, sid, ["ann"])
    with pytest.raises(UserError, match="not open"):
        blind.open_with_code(store, ann.code)
    studies.open_study(store, sid)
    view, _ = blind.open_with_code(store, ann.code)
    with pytest.raises(UserError, match="closed"):
        blind.reveal(store, sid)
    with pytest.raises(UserError, match="only from closed"):
        studies.publish_study(store, sid)
    studies.close_study(store, sid)
    with pytest.raises(UserError, match="closed"):
        blind.submit_slots_with_code(store, ann.code, view.item, *all_scores(view))
    assert len(blind.reveal(store, sid)) == 3
    studies.publish_study(store, sid)
    assert store.get_study(sid).state == "published"


def test_a_draft_with_missing_outputs_cannot_be_opened(store):
    sid = store.create_study("partial", methods=METHODS, max_new_tokens=8, state="draft")
    store.add_items(sid, [{"prompt": "p"}])
    with pytest.raises(UserError, match="missing"):
        studies.open_study(store, sid)


def test_names_are_normalised_and_stripped_of_invisible_characters():
    assert clean_rater_name("ａｌｉｃｅ") == "alice"
    assert clean_rater_name("ali\u200bce\u202e") == "alice"
    assert clean_rater_name("  al \t ice\x00 ") == "al ice"
    with pytest.raises(UserError):
        clean_rater_name("\u200b\u202e\x00")


def test_study_names_are_cleaned_and_may_not_name_a_method(store):
    sid = store.create_study("Pilot\u202e\x00 ｏｎｅ", methods=METHODS)
    assert store.get_study(sid).name == "Pilot one"
    for bad in ("bs4 vs tilted", "Pilot (ts temp)", "TS_TILTED round", "ｂｓ－４"):
        with pytest.raises(UserError, match="method names"):
            studies.create_study(store, StudySpec(bad, studies.builtin_prompts("en"), methods=METHODS))


def test_the_same_rater_twice_in_one_invitation_is_refused(store):
    sid = make_study(store)
    with pytest.raises(UserError, match="twice"):
        invites.invite(store, sid, ["Ann", "ann"])


def test_invite_csv_escapes_names_that_start_a_formula(store):
    sid = make_study(store)
    made = invites.invite(store, sid, ["=cmd|' /C calc'!A0"])
    csv_text = invites.invites_csv(made)
    assert "\n'=cmd" in csv_text and made[0].code in csv_text


def test_backoff_doubles_the_wait_for_wrong_codes_and_never_holds_up_a_valid_one(store):
    sid = make_study(store)
    [ann] = invites.invite(store, sid, ["ann"])
    now = [1000.0]
    limiter = throttle.Backoff("invite code", free=3, base_s=2, cap_s=60, clock=lambda: now[0])
    real, throttle.invite_codes = throttle.invite_codes, limiter
    try:
        for _ in range(3):
            with pytest.raises(UserError, match="not valid"):
                invites.resolve(store, "wrong", client="10.0.0.9")
        with pytest.raises(UserError, match="not valid"):
            invites.resolve(store, "wrong", client="10.0.0.9")  # 4th failure: 2 s wait
        with pytest.raises(UserError, match="wait 2 s"):
            invites.resolve(store, "wrong", client="10.0.0.9")  # a wrong code waits, unheard
        # A valid code from the same client (a rater behind the guesser's address) is let in at once.
        assert invites.resolve(store, ann.code, client="10.0.0.9").rater == "ann"
        assert invites.resolve(store, ann.code, client="10.0.0.8").rater == "ann"
        now[0] += 2.5
        with pytest.raises(UserError, match="not valid"):
            invites.resolve(store, "wrong", client="10.0.0.9")  # 5th: 4 s (the valid code reset nothing)
        now[0] += 3
        with pytest.raises(UserError, match="wait 1 s"):
            invites.resolve(store, "wrong", client="10.0.0.9")
        assert limiter.wait_left("10.0.0.8") == 0  # another client never waited
        now[0] += 3600 + 5  # an hour after the last failure the record is forgotten
        for _ in range(3):
            with pytest.raises(UserError, match="not valid"):
                invites.resolve(store, "wrong", client="10.0.0.9")
        assert limiter.wait_left("10.0.0.9") == 0
    finally:
        throttle.invite_codes = real


def test_password_backoff_refuses_the_right_password_too_but_not_an_exempt_session():
    now = [0.0]
    limiter = throttle.Backoff("organizer password", free=1, base_s=4, clock=lambda: now[0])
    limiter.failed("10.0.0.5")
    limiter.failed("10.0.0.5")
    with pytest.raises(UserError, match="wait 4 s"):
        limiter.check("10.0.0.5")  # unheard, right or wrong
    limiter.check("10.0.0.5", exempt=True)  # the organizer's browser, which proved the password before
    limiter.check("10.0.0.6")
    limiter.succeeded("10.0.0.5")
    with pytest.raises(UserError, match="wait"):
        limiter.check("10.0.0.5")  # a success does not clear the record


def test_messages_with_user_text_are_escaped():
    name = '<img src=x onerror="alert(1)">**bold**'
    assert "<img" not in md_text(name) and "**" not in md_text(name).replace("\\*", "")
    assert "<img" not in toast(f"there is no rater {name!r}")


def test_migrated_raters_are_enrolled_and_can_be_given_codes(store):
    """A rater from before invites rated by name; their place stays and the organizer issues a code."""
    sid = make_study(store)
    view, _ = blind.open_item(store, "legacy rater", sid)  # the trusted, name-based path (as old data)
    blind.submit(
        store, "legacy rater", view.item, {r.label: dict.fromkeys(blind.DIMENSIONS, 2) for r in view.responses}
    )
    [row] = store.enrolments(sid)
    assert row.rater == "legacy rater" and not row.has_code
    [code] = invites.invite(store, sid, ["legacy rater"])
    again, _ = blind.open_with_code(store, code.code, 1)
    assert again.item == view.item and [r.text for r in again.responses] == [r.text for r in view.responses]
    assert store.enrolments(sid)[0].has_code
