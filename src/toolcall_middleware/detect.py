"""Which provider format a response is in, for ``provider="auto"``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .parsers.descriptor import format_for_model

#: The parser that recognises a format from its markers in the stream (``parsers.sniff``).
SNIFF = "sniff"


@dataclass(frozen=True, slots=True)
class Provider:
    """How a response is parsed: format ``name`` (the one configured, the override map's, the
    model name's, or ``"sniff"``), and whether the stream's markers may choose another format
    of its family (``auto`` with a name that matches a rule; ``name`` is then the default)."""

    name: str
    by_family: bool = False


def provider_for_model(model: str, overrides: Mapping[str, str] = {}) -> str:
    """The provider for a model name: the override map first, then the name rules."""
    return _provider_from_name(model, overrides)[0] or "openai"


def _provider_from_name(model: str, overrides: Mapping[str, str]) -> tuple[str | None, bool]:
    """The format a name picks, and whether a name rule (not the override map) picked it."""
    lowered = model.lower()
    for name, provider in overrides.items():
        if name.lower() == lowered:
            return provider, False
    # The formats' model-name rules; the more specific rule wins (see ``parsers.descriptor``).
    fmt = format_for_model(model)
    return (None, False) if fmt is None else (fmt.name, True)


def detect_provider(configured: str, model: str, overrides: Mapping[str, str] = {}) -> Provider:
    """An explicit provider always wins, and so does the override map's for its model; else
    the model name chooses a family and the stream's markers the format within it, and when
    the name matches no rule, the markers choose among every format."""
    if configured != "auto":
        return Provider(configured)
    provider, by_rule = _provider_from_name(model, overrides)
    return Provider(provider or SNIFF, by_rule)


def resolve_provider(configured: str, model: str, overrides: Mapping[str, str] = {}) -> str:
    """The name of the format ``detect_provider`` gives (the default of a family)."""
    return detect_provider(configured, model, overrides).name
