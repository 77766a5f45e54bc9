"""ARENA_MODE=rating: a deployment for raters serves no tab that generates (nothing can replay a
study's prompt), and its handlers are not registered at all, so no API call reaches them."""

from __future__ import annotations

import pytest

import app
from ui.i18n import plain


def tab_ids(demo) -> set[str]:
    config = demo.get_config_file()
    return {c["props"].get("id") for c in config["components"] if c.get("type") == "tabitem"}


def test_rating_mode_serves_rate_and_results_only(monkeypatch):
    monkeypatch.setenv("ARENA_MODE", "rating")
    demo = app.build_app()
    assert tab_ids(demo) == {"rating", "results"}
    names = {d.get("api_name") for d in demo.get_config_file()["dependencies"]}
    assert "compare" not in names and "rate_submit" in names


def test_every_mode_has_a_rating_only_page_for_invite_links(monkeypatch):
    for mode in ("full", "rating"):
        monkeypatch.setenv("ARENA_MODE", mode)
        config = app.build_app().get_config_file()
        page = config["page"]["rate"]
        on_page = [c for c in config["components"] if c["id"] in set(page["components"])]
        assert not [c for c in on_page if c.get("type") == "tabitem"]
        labels = {str(plain(c["props"].get("label"))) for c in on_page}
        assert "Invite code or link" in labels and "Organizer password" not in labels and "Methods" not in labels
        names = {d.get("api_name") for d in config["dependencies"] if d["id"] in set(page["dependencies"])}
        assert "rate_submit_1" in names and not [n for n in names if str(n).startswith(("compare", "multiarm"))]


def test_full_mode_and_a_bad_mode(monkeypatch):
    monkeypatch.delenv("ARENA_MODE", raising=False)
    assert tab_ids(app.build_app()) == {m for _, m in app.TABS}
    monkeypatch.setenv("ARENA_MODE", "everything")
    with pytest.raises(SystemExit) as exit_:
        app.app_mode()
    assert exit_.value.code == 2


def test_a_space_without_database_url_warns_in_rate_and_organizer(monkeypatch):
    monkeypatch.setenv("SPACE_ID", "someone/decoding-arena")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("ARENA_MODE", raising=False)
    config = app.build_app().get_config_file()

    def warnings(page: str) -> int:
        ids = set(config["page"][page]["components"])
        texts = [c["props"].get("value") or "" for c in config["components"] if c["id"] in ids]
        return sum("lost when it restarts; set DATABASE_URL" in str(t) for t in texts)

    assert warnings("") == 2  # the Rate tab and the Organizer tab
    assert warnings("rate") == 1  # the invited rater's page
    monkeypatch.setenv("DATABASE_URL", "postgresql://db.example/arena")
    texts = [
        c["props"].get("value") or ""
        for c in app.build_app().get_config_file()["components"]
        if c.get("type") == "markdown"
    ]
    assert not any("lost when it restarts" in t for t in texts)
