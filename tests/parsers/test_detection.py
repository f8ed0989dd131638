"""provider="auto": override map, then model-name rules, then markers in the stream."""

from __future__ import annotations

import pytest

from toolcall_middleware.detect import provider_for_model, resolve_provider


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("moonshotai/Kimi-K2-Instruct", "kimi_k2"),
        ("Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen3_coder"),
        ("qwen3.5-plus", "qwen3_coder"),
        ("Qwen/Qwen2.5-72B-Instruct", "hermes"),
        ("qwen3-235b-a22b", "hermes"),
        ("deepseek-ai/DeepSeek-V3.1", "deepseek"),
        ("deepseek-r1", "deepseek"),
        ("zai-org/GLM-4.6", "glm45"),
        ("glm-5", "glm45"),
        ("MiniMaxAI/MiniMax-M2", "minimax_m2"),
        ("mistralai/Mistral-Small-3.2-24B", "mistral"),
        ("magistral-medium", "mistral"),
        ("devstral-small", "mistral"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama3_json"),
        ("openai/gpt-oss-120b", "gpt_oss"),
        ("gpt-4o", "openai"),
    ],
)
def test_model_name_rules(model: str, provider: str) -> None:
    assert provider_for_model(model) == provider


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("kimi-k2-qwen-distill", "kimi_k2"),  # Kimi > Qwen
        ("qwen-deepseek-merge", "hermes"),  # Qwen > DeepSeek
        ("deepseek-r1-distill-llama-70b", "deepseek"),
        ("DeepSeek-R1-Distill-Qwen-32B", "hermes"),  # Qwen comes first in the precedence
    ],
)
def test_precedence_when_a_name_matches_several_rules(model: str, provider: str) -> None:
    assert provider_for_model(model) == provider


def test_overrides_first_then_names_then_markers_and_explicit_always_wins() -> None:
    overrides = {"My-Alias": "glm45", "qwen-internal": "openai"}
    assert resolve_provider("auto", "my-alias", overrides) == "glm45"
    assert resolve_provider("auto", "qwen-internal", overrides) == "openai"
    assert resolve_provider("auto", "qwen-plus", overrides) == "hermes"
    assert resolve_provider("auto", "company-model-7b", overrides) == "sniff"
    assert resolve_provider("auto", "", overrides) == "sniff"
    assert resolve_provider("deepseek", "kimi-k2", overrides) == "deepseek"
    assert resolve_provider("openai", "company-model-7b") == "openai"
