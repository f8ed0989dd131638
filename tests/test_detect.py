from __future__ import annotations

import pytest

from toolcall_middleware.detect import provider_for_model, resolve_provider


@pytest.mark.parametrize(("model", "provider"), [
    ("moonshotai/Kimi-K2.5-TEE", "kimi_k2"),
    ("kimi-k2-thinking", "kimi_k2"),
    ("Moonshot-v1", "kimi_k2"),
    ("gpt-4o", "openai"),
    ("", "openai"),
])
def test_model_names(model: str, provider: str) -> None:
    assert provider_for_model(model) == provider


def test_override_map_comes_first_and_explicit_provider_wins() -> None:
    assert provider_for_model("My-Alias", {"my-alias": "kimi_k2"}) == "kimi_k2"
    assert provider_for_model("kimi-k2", {"kimi-k2": "openai"}) == "openai"
    assert resolve_provider("openai", "kimi-k2") == "openai"
    assert resolve_provider("auto", "kimi-k2") == "kimi_k2"
