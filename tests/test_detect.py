"""provider="auto": override map, then model-name rules, then markers in the stream."""

from __future__ import annotations

import pytest

from toolcall_middleware.detect import (
    Provider,
    detect_provider,
    provider_for_model,
    resolve_provider,
)


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("moonshotai/Kimi-K2-Instruct", "kimi_k2"),
        ("moonshotai/Kimi-K2.5-TEE", "kimi_k2"),
        ("kimi-k2-thinking", "kimi_k2"),
        ("Moonshot-v1", "kimi_k2"),
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
        ("", "openai"),
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


# Real model ids from the hubs (Hugging Face, OpenRouter, Ollama, hosted APIs), org prefixes,
# quantisations and fine-tunes included. A name that matches several rules gets the format of
# the most specific one: a fine-tune family over its base, a model line over its vendor.
HUB_MODELS = {
    "hermes": [
        "NousResearch/Hermes-3-Llama-3.1-8B",
        "NousResearch/Hermes-3-Llama-3.1-405B",
        "Hermes-2-Pro-Llama-3-8B",
        "NousResearch/Hermes-2-Pro-Mistral-7B",
        "NousResearch/Hermes-2-Theta-Llama-3-8B",
        "NousResearch/DeepHermes-3-Llama-3-8B-Preview",
        "NousResearch/DeepHermes-3-Mistral-24B-Preview",
        "NousResearch/Hermes-4-70B",
        "NousResearch/Hermes-4-14B",
        "nousresearch/hermes-3-llama-3.1-405b",
        "Qwen/Qwen2.5-7B-Instruct",
        "Qwen/Qwen2.5-72B-Instruct-AWQ",
        "Qwen/Qwen2.5-Coder-32B-Instruct",
        "Qwen/Qwen3-8B",
        "Qwen/Qwen3-235B-A22B-Instruct-2507",
        "Qwen/Qwen3-235B-A22B-Thinking-2507",
        "Qwen/Qwen3-Next-80B-A3B-Instruct",
        "Qwen/QwQ-32B",
        "qwq-32b",
        "qwen/qwen3-32b",
        "RedHatAI/Qwen3-8B-FP8-dynamic",
        "qwen3:30b-a3b",
        "qwen-max",
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
        "ibm-granite/granite-4.0-h-tiny",
        "ibm-granite/granite-4.0-h-small",
        "granite4:micro",
        "baidu/ERNIE-4.5-21B-A3B-PT",
        "baidu/ERNIE-4.5-21B-A3B-Thinking",
        "baidu/ERNIE-4.5-300B-A47B-Paddle",
    ],
    "longcat": ["meituan-longcat/LongCat-Flash-Chat", "meituan-longcat/LongCat-Flash-Thinking"],
    "gigachat3": ["ai-sage/GigaChat3-10B-A1.8B", "ai-sage/GigaChat3-702B-A36B-preview"],
    "qwen3_coder": [
        "Qwen/Qwen3-Coder-480B-A35B-Instruct",
        "Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8",
        "unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF",
        "qwen/qwen3-coder:free",
        "qwen3-coder-plus",
        "Qwen/Qwen3.5-397B-A17B",
        "qwen3.5-plus",
        "XiaomiMiMo/MiMo-V2-Flash",  # MiMo writes Qwen3-Coder's XML
        "stepfun-ai/Step-3.5-Flash",
        "stepfun/step-3.5-flash",
    ],
    "deepseek": [
        "deepseek-ai/DeepSeek-V3",
        "deepseek-ai/DeepSeek-V3-0324",
        "deepseek-ai/DeepSeek-R1",
        "deepseek-ai/DeepSeek-R1-0528",
        "deepseek-ai/DeepSeek-V3.1",
        "deepseek-ai/DeepSeek-V3.1-Terminus",
        "deepseek-ai/DeepSeek-V3.2-Exp",  # V3.1's markup still
        "deepseek/deepseek-v3.2-exp",
        "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
        "deepseek/deepseek-chat-v3.1",
        "deepseek-chat",
        "deepseek-reasoner",
    ],
    "deepseek_v32": [
        "deepseek-ai/DeepSeek-V3.2",
        "deepseek-ai/DeepSeek-V3.2-Speciale",
        "deepseek/deepseek-v3.2",
        "deepseek-v3.2:cloud",
        "accounts/fireworks/models/deepseek-v3p2",
    ],
    "deepseek_v4": [
        "deepseek-ai/DeepSeek-V4-Flash",
        "deepseek-ai/DeepSeek-V4-Pro",
        "deepseek-ai/DeepSeek-V4.1-Flash",
        "deepseek/deepseek-v4-flash",
    ],
    "kimi_k2": [
        "moonshotai/Kimi-K2-Instruct",
        "moonshotai/Kimi-K2-Instruct-0905",
        "moonshotai/Kimi-K2-Thinking",
        "moonshotai/Kimi-K2.5",
        "moonshotai/Kimi-K2.5-TEE",
        "moonshotai/kimi-k2:free",
        "unsloth/Kimi-K2-Instruct-GGUF",
        "mlx-community/Kimi-K2-Thinking-4bit",
        "kimi-k2-turbo-preview",
    ],
    "glm45": [
        "zai-org/GLM-4.5",
        "zai-org/GLM-4.5-Air-FP8",
        "zai-org/GLM-4.6",
        "zai-org/GLM-4.7",
        "z-ai/glm-4.6",
        "cerebras/GLM-4.5-Air-REAP-82B-A12B",
        "zai-org/GLM-4.7-Flash",
        "zai-org/GLM-5",
        "z-ai/glm-5.1",
        "glm-4.7:cloud",
        "THUDM/GLM-4-32B-0414",
    ],
    "minimax_m2": [
        "MiniMaxAI/MiniMax-M2",
        "MiniMaxAI/MiniMax-M1-80k",
        "minimax/minimax-m2:free",
    ],
    "minimax_m3": [
        "MiniMaxAI/MiniMax-M3",
        "minimax/minimax-m3",
        "minimax-m3:cloud",
    ],
    "seed_oss": [
        "ByteDance-Seed/Seed-OSS-36B-Instruct",
        "ByteDance-Seed/Seed-OSS-36B-Base",
        "bytedance/seed-oss-36b-instruct",
    ],
    "mistral": [
        "mistralai/Mistral-7B-Instruct-v0.3",
        "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
        "mistralai/Mistral-Large-Instruct-2411",
        "mistralai/Mixtral-8x22B-Instruct-v0.1",
        "mixtral-8x7b-instruct",
        "mistralai/Devstral-Small-2507",
        "mistralai/Magistral-Small-2506",
        "ministral-8b-latest",
        "codestral-latest",
        "mistralai/devstral-medium",
    ],
    "llama3_json": [
        "meta-llama/Llama-3.1-8B-Instruct",
        "meta-llama/Meta-Llama-3.1-70B-Instruct",
        "meta-llama/Llama-3.2-3B-Instruct",
        "meta-llama/Llama-3.3-70B-Instruct",
        "meta-llama/llama-3.3-70b-instruct",
        "nvidia/Llama-3.1-Nemotron-70B-Instruct-HF",
        "llama3.1:8b",
    ],
    "gpt_oss": [
        "openai/gpt-oss-120b",
        "openai/gpt-oss-20b",
        "gpt-oss:20b",
        "unsloth/gpt-oss-20b-GGUF",
    ],
    "kimi_k3": [
        "moonshotai/Kimi-K3",
        "moonshotai/kimi-k3:free",
        "kimi-k3-thinking",
        "Moonshot-K3",
        "k3",
        "Kimi K3 Qwen distill",  # Kimi's own line before Qwen
    ],
    "gemma4": [
        "google/gemma-4-31B-it",
        "google/gemma-4-26B-A4B-it",
        "google/gemma-4-E4B-it",
        "gemma4:27b",
    ],
    "pythonic": [
        "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8",
        "meta-llama/llama-4-maverick",
        "llama4:scout",
    ],
    "olmo3": ["allenai/Olmo-3-7B-Instruct", "allenai/Olmo-3-32B-Think", "olmo3:7b"],
    "internlm": [
        "internlm/internlm2_5-7b-chat",
        "internlm/internlm3-8b-instruct",
        "internlm/internlm2-chat-20b",
    ],
    "phi4_mini": [
        "microsoft/Phi-4-mini-instruct",
        "microsoft/Phi-4-multimodal-instruct",
        "phi4-mini:3.8b",
        "Phi-4-mini-instruct-onnx",
    ],
    "xlam": [
        "Salesforce/Llama-xLAM-2-8b-fc-r",
        "Salesforce/Llama-xLAM-2-70b-fc-r",
        "Salesforce/xLAM-2-32b-fc-r",
        "Salesforce/xLAM-2-3b-fc-r",
        "Salesforce/xLAM-7b-fc-r",
    ],
    "lfm2": [
        "LiquidAI/LFM2.5-1.2B-Instruct",
        "LiquidAI/LFM2-1.2B-Tool",
        "LiquidAI/LFM2-8B-A1B",
        "LiquidAI/LFM2.5-1.2B-Thinking",
        "lfm2:1.2b",
    ],
    "openai": [
        "gpt-4o",
        "gpt-4.1-mini",
        "o3-mini",
        "claude-sonnet-4-5",
        "gemini-2.5-pro",
        "google/gemma-3-27b-it",  # no tool tokens before Gemma 4
    ],
}


@pytest.mark.parametrize(
    ("model", "provider"),
    [(model, provider) for provider, models in HUB_MODELS.items() for model in models],
)
def test_real_model_ids_pick_their_format(model: str, provider: str) -> None:
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
    assert provider_for_model("My-Alias", {"my-alias": "kimi_k2"}) == "kimi_k2"
    assert provider_for_model("kimi-k2", {"kimi-k2": "openai"}) == "openai"
    assert resolve_provider("openai", "kimi-k2") == "openai"
    assert resolve_provider("auto", "kimi-k2") == "kimi_k2"


def test_auto_reads_a_named_stream_by_family_and_an_unnamed_one_by_markers_alone() -> None:
    assert detect_provider("auto", "qwen3") == Provider("hermes", by_family=True)
    assert detect_provider("auto", "qwen3-coder-plus") == Provider("qwen3_coder", by_family=True)
    assert detect_provider("auto", "kimi-k2") == Provider("kimi_k2", by_family=True)
    assert detect_provider("auto", "my-coder") == Provider("sniff")
    # An explicit provider, and the override map's, read their format only.
    assert detect_provider("hermes", "qwen3") == Provider("hermes")
    assert detect_provider("auto", "qwen3", {"QWEN3": "hermes"}) == Provider("hermes")
