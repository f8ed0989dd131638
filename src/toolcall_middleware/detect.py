"""Which provider format a response is in, for ``provider="auto"``."""

from __future__ import annotations

from collections.abc import Mapping

from .parsers import providers

# First match wins (FORMATS.md): Kimi before Qwen before DeepSeek, native OpenAI otherwise.
MODEL_NAME_RULES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("kimi", "k2", "moonshot"), "kimi_k2"),
    (("qwen3-coder", "qwen3_coder", "qwen3.5"), "qwen3_coder"),
    (("qwen",), "hermes"),
    (("deepseek",), "deepseek"),
    (("glm", "zai"), "glm45"),
    (("minimax",), "minimax_m2"),
    (("mistral", "magistral", "devstral"), "mistral"),
    (("llama",), "llama3_json"),
    (("gpt-oss", "gpt_oss"), "gpt_oss"),
)


#: The parser that recognises a format from its markers in the stream (``parsers.sniff``).
SNIFF = "sniff"


def provider_for_model(model: str, overrides: Mapping[str, str] = {}) -> str:
    """The provider for a model name: the override map first, then the name rules."""
    return _provider_from_name(model, overrides) or "openai"


def _provider_from_name(model: str, overrides: Mapping[str, str]) -> str | None:
    lowered = model.lower()
    for name, provider in overrides.items():
        if name.lower() == lowered:
            return provider
    available = providers()
    for needles, provider in MODEL_NAME_RULES:
        if any(n in lowered for n in needles) and provider in available:
            return provider
    return None


def resolve_provider(configured: str, model: str, overrides: Mapping[str, str] = {}) -> str:
    """An explicit provider always wins; ``"auto"`` looks at the override map, then the model
    name, and when the name says nothing, at the format's own markers in the stream."""
    if configured != "auto":
        return configured
    return _provider_from_name(model, overrides) or SNIFF
