"""One descriptor per provider format: everything the package knows about a format, said once.

A format module builds its parser and then declares a ``Format``: the parser class, the model
names that pick the format (each rule with its precedence), the markers that name the format in a
stream, the special tokens its models never write as text, the models whose chat template opens
a ``<think>`` block, and how the format writes a call (for tests, benchmarks and recordings).
The registry (``create_parser``, ``providers``), model-name detection (``detect.py``) and marker
sniffing (``sniff.py``) read these descriptors, so adding a format is its parser module and its
recordings.

Model names are matched lowercased, by patterns: a pattern matches when its ``*``-separated
pieces all occur in the name, in order (``"qwen3*thinking"``). When a name matches rules of
several formats, the rule with the highest precedence wins (then the longer pattern):

======================  ============  ==============================================
precedence              formats       why
======================  ============  ==============================================
``FINE_TUNE`` (90)      hermes        a fine-tune family writes its own format
                                      whatever its base (``Hermes-3-Llama-3.1-8B``,
                                      ``Hermes-2-Pro-Mistral-7B``)
``KIMI`` (80)           kimi_k2       Kimi before Qwen before DeepSeek (distills and
                                      merges)
``QWEN_LINE`` (75)      qwen3_coder   a Qwen line with a format of its own, before
                                      plain Qwen
``QWEN`` (70)           hermes
``DEEPSEEK_LINE`` (65)  deepseek_v32, a DeepSeek line with a format of its own,
                        deepseek_v4,  before plain DeepSeek (``deepseek-v3.2``,
                        deepseek      ``deepseek-v4``; ``deepseek-v3.2-exp`` kept
                                      V3.1's markup)
``DEEPSEEK`` (60)       deepseek
``VENDOR_LINE`` (55)    minimax_m3    a vendor's model line with a format of its
                                      own, before the vendor's (``minimax-m3``
                                      before ``minimax``)
``VENDOR`` (50)         glm45,        one vendor's models (GLM-4.5 to 5.x are all
                        minimax_m2,   ``glm45``); StepFun's ``step-3.5`` writes
                        mistral,      Qwen3-Coder's markup
                        gpt_oss,
                        seed_oss,
                        qwen3_coder
``BASE`` (40)           llama3_json   a base model that fine-tunes keep in their
                                      names
======================  ============  ==============================================
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .base import ParserContext, ToolCallParser

# The precedences of model-name rules (see the table above).
FINE_TUNE = 90
KIMI = 80
QWEN_LINE = 75
QWEN = 70
DEEPSEEK_LINE = 65
DEEPSEEK = 60
VENDOR_LINE = 55
VENDOR = 50
BASE = 40


class CallWriter(Protocol):
    """Writes calls ``(name, JSON arguments text)`` in a format's markup (test and benchmark
    fixtures); ``start`` numbers them where the format writes a counter."""

    def __call__(self, calls: Sequence[tuple[str, str]], start: int = 0) -> str: ...


def raw_values(arguments: str) -> list[tuple[str, str]]:
    """JSON object arguments as ``(key, raw value)`` pairs, as the XML formats write them: a
    string as it is, anything else as JSON (for ``CallWriter`` fixtures)."""
    values = json.loads(arguments)
    return [(k, v if isinstance(v, str) else json.dumps(v)) for k, v in values.items()]


def name_matches(model: str, pattern: str) -> bool:
    """Whether lowercased ``model`` holds the ``*``-separated pieces of ``pattern`` in order."""
    at = 0
    for piece in pattern.split("*"):
        found = model.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return True


@dataclass(frozen=True)
class NameRule:
    """Model-name patterns that pick a format, with the rule's precedence."""

    patterns: tuple[str, ...]
    precedence: int


@dataclass(frozen=True)
class Format:
    name: str
    #: Builds the format's parser from the request context (the class itself, usually).
    parser: Callable[[ParserContext], ToolCallParser]
    model_names: tuple[NameRule, ...] = ()
    #: Markers that name this format outright wherever they appear (``parsers.sniff``).
    sniff_markers: tuple[str, ...] = ()
    #: Special tokens the format's models never write as text. Where the markup has no place
    #: for one (a lone end marker, a separator outside a call) it is a stray: dropped and
    #: counted, never delivered. Tokens that look like text a model may write (``[ARGS]``,
    #: XML tags such as ``</tool_call>``) are not listed: see each parser for those.
    stray_tokens: tuple[str, ...] = ()
    #: Models whose chat template opens a ``<think>`` block for them: their text starts
    #: inside it and only ``</think>`` appears (the reasoning split, ``think.py``).
    thinking_opened: tuple[str, ...] = ()
    #: How the format writes calls (fixtures for tests, benchmarks and recordings).
    write_calls: CallWriter | None = None
    #: Pieces of the format's markup, for the random-soup property tests.
    markup_pieces: tuple[str, ...] = ()

    @property
    def triggers(self) -> str | None:
        """The characters any of the format's markup starts with (the parser's ``TRIGGERS``)."""
        triggers = getattr(self.parser, "TRIGGERS", None)
        return triggers if isinstance(triggers, str) else None


_FORMATS: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    """Make a format available as ``provider=fmt.name``."""
    _FORMATS[fmt.name] = fmt
    return fmt


def formats() -> Mapping[str, Format]:
    """Every registered format by name (in registration order)."""
    return _FORMATS


def format_for_model(model: str) -> Format | None:
    """The format a model name picks: the matching rule of highest precedence, then the longest
    pattern; ``None`` when no rule matches."""
    lowered = model.lower()
    best: Format | None = None
    best_key = (-1, -1)
    for fmt in _FORMATS.values():
        for rule in fmt.model_names:
            for pattern in rule.patterns:
                key = (rule.precedence, len(pattern))
                if key > best_key and name_matches(lowered, pattern):
                    best, best_key = fmt, key
    return best


def thinking_opened(model: str) -> bool:
    """Whether a model's chat template opens a ``<think>`` block, so its text starts inside it.

    Asked of the format the name picks, whatever provider parses the stream: a model line's
    facts sit with its family (``DeepSeek-R1-Distill-Qwen`` is a Qwen)."""
    fmt = format_for_model(model)
    lowered = model.lower()
    return fmt is not None and any(name_matches(lowered, p) for p in fmt.thinking_opened)
