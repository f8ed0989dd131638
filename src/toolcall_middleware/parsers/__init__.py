"""Provider parsers, registered by the names ``ToolCallMiddleware(provider=...)`` accepts.

Each format module declares its ``Format`` descriptor (see ``descriptor``) when imported.
"""

from __future__ import annotations

from collections.abc import Callable

from ..events import Event, Text
from .base import MarkerSearch, ParserContext, Tool, ToolCallParser
from .descriptor import Format, NameRule, formats, register

ParserFactory = Callable[[ParserContext], ToolCallParser]


def providers() -> tuple[str, ...]:
    return tuple(sorted(formats()))


def parser_triggers(name: str) -> str | None:
    """The characters that can start markup for provider ``name`` (a parser's ``TRIGGERS``).

    While a parser has just echoed its text, a delta containing none of these characters
    cannot change, so the stream path may forward it without decoding it. ``None``: unknown.
    """
    fmt = formats().get(name)
    return None if fmt is None else fmt.triggers


def create_parser(name: str, context: ParserContext) -> ToolCallParser:
    try:
        fmt = formats()[name]
    except KeyError:
        known = ", ".join(providers())
        raise ValueError(f"unknown provider {name!r}; known providers: {known}") from None
    return fmt.parser(context)


class PassthroughParser(ToolCallParser):
    """Native ``tool_calls`` only: model text is never parsed for markup."""

    TRIGGERS = ""

    def __init__(self, context: ParserContext) -> None:
        pass

    def feed(self, text: str) -> list[Event]:
        return [Text(text)] if text else []

    def finish(self) -> list[Event]:
        return []


register(Format("openai", PassthroughParser, family="openai"))

# Importing the format modules registers them (sniff last: it reads the others).
from . import (  # noqa: E402
    deepseek,
    deepseek_v4,
    deepseek_v32,
    gemma4,
    gigachat3,
    glm45,
    gpt_oss,
    hermes,
    hunyuan_a13b,
    hy_v3,
    internlm,
    kimi_k2,
    kimi_k3,
    lfm2,
    llama3_json,
    longcat,
    minimax_m2,
    minimax_m3,
    mistral,
    olmo3,
    phi4_mini,
    pythonic,
    qwen3_coder,
    qwen_xml,
    seed_oss,
    xlam,
)

# isort: split
from . import sniff  # noqa: E402  (last: it reads the others)

__all__ = [
    "Format",
    "MarkerSearch",
    "NameRule",
    "ParserContext",
    "ParserFactory",
    "PassthroughParser",
    "Tool",
    "ToolCallParser",
    "create_parser",
    "deepseek",
    "deepseek_v4",
    "deepseek_v32",
    "formats",
    "gemma4",
    "gigachat3",
    "glm45",
    "gpt_oss",
    "hermes",
    "hunyuan_a13b",
    "hy_v3",
    "internlm",
    "kimi_k2",
    "kimi_k3",
    "lfm2",
    "llama3_json",
    "longcat",
    "minimax_m2",
    "minimax_m3",
    "mistral",
    "olmo3",
    "parser_triggers",
    "phi4_mini",
    "providers",
    "pythonic",
    "qwen3_coder",
    "qwen_xml",
    "register",
    "seed_oss",
    "sniff",
    "xlam",
]
