"""The vLLM model → server map (issue 25, `ARENA_VLLM_SERVERS`): one server per model, a model with
no server refused with a clear message. No server runs here: picking a server sends nothing."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from arena import engines, settings
from arena.engines.vllm import servers
from common.errors import UserError

MAP = "smollm2-135m=http://gpu-a:8000/, gemma-3-270m=https://gpu-b:9000"


def model(source: str) -> SimpleNamespace:
    return SimpleNamespace(source=source)


def test_the_map_is_parsed_and_every_bad_entry_is_named():
    assert servers.parse_servers(MAP) == {"smollm2-135m": "http://gpu-a:8000", "gemma-3-270m": "https://gpu-b:9000"}
    assert servers.parse_servers("") == {}
    with pytest.raises(UserError, match=r"MODEL=URL entries .* got 'gemma-3-270m'"):
        servers.parse_servers("smollm2-135m=http://a:1,gemma-3-270m")
    with pytest.raises(UserError, match=r"gemma-3-270m's server 'gpu-b:9000' is not an http\(s\) URL"):
        servers.parse_servers("gemma-3-270m=gpu-b:9000")
    with pytest.raises(UserError, match="names the model 'default' twice"):  # "" / default / smollm2 are one model
        servers.parse_servers("smollm2-135m=http://a:1,default=http://b:2")


def test_each_model_goes_to_its_own_server_and_an_unmapped_one_is_refused():
    mapped = servers.parse_servers(MAP)
    assert servers.server_for("gemma-3-270m", mapped, "", "http://x") == "https://gpu-b:9000"
    assert servers.server_for("", mapped, "", "http://x") == "http://gpu-a:8000"  # "" is smollm2-135m
    with pytest.raises(UserError, match=r"no vLLM server serves the model 'org/other'.*add org/other=URL"):
        servers.server_for("org/other", mapped, "", "http://x")
    # no map: ARENA_VLLM_URL serves ARENA_MODEL alone, as before
    assert servers.server_for("smollm2-135m", {}, "", "http://x") == "http://x"
    with pytest.raises(UserError, match=r"serves ARENA_MODEL \(smollm2-135m\) only; map each model"):
        servers.server_for("gemma-3-270m", {}, "", "http://x")


def test_the_engine_for_a_model_is_its_servers_client():
    with settings.override(engine="vllm", vllm_servers=MAP, model="gemma-3-270m"):
        gemma = engines.engine_for(model("embedded:gemma-3-270m"))
        smol = engines.engine_for(model("embedded:smollm2-135m"))
        assert isinstance(gemma, engines.VllmEngine) and gemma.client.url == "https://gpu-b:9000"
        assert smol.client.url == "http://gpu-a:8000" and engines.engine_for(model("embedded:smollm2-135m")) is smol
        assert engines.current() is gemma  # the app's own model's server
        assert engines.model_choices("gemma-3-270m") == ["gemma-3-270m", "smollm2-135m"]
        with pytest.raises(UserError, match="no vLLM server serves the model 'org/other'"):
            engines.engine_for(model("hub:org/other"))
    with settings.override(engine="vllm", vllm_servers="", vllm_url="http://one:8000", model=""):
        assert engines.engine_for(model("vllm:/cache/converted/smol")).client.url == "http://one:8000"
        assert engines.model_choices("smollm2-135m") == ["smollm2-135m"]
        with pytest.raises(UserError, match="ARENA_VLLM_URL .* serves ARENA_MODEL"):
            engines.engine_for(model("embedded:gemma-3-270m"))
    with settings.override(engine="transformers"):
        assert engines.engine_for(model("embedded:gemma-3-270m")) is engines.LOCAL
