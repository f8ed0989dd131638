"""One descriptor per provider format: everything the package knows about a format, said once.

A format module builds its parser and then declares a ``Format``: the parser class, its family,
the model names that pick the format (each rule with its precedence), the markers that name the
format in a stream, the special tokens its models never write as text, the models whose chat
template opens a ``<think>`` block, always or when the request asks for reasoning (or the
format's own reasoning block, which its parser reads), and how the format writes a call (for
tests, benchmarks and recordings).
The registry (``create_parser``, ``providers``), model-name detection (``detect.py``) and marker
sniffing (``sniff.py``) read these descriptors, so adding a format is its parser module and its
recordings.

Model names are matched lowercased, by patterns: a pattern matches when its ``*``-separated
pieces all occur in the name, in order (``"qwen3*thinking"``). When a name matches rules of
several formats, the rule with the highest precedence wins (then the longer pattern):

======================  ============  ==================================================
precedence              formats       why
======================  ============  ==================================================
``FINE_TUNE`` (90)      hermes,       a fine-tune family writes its own format whatever
                        xlam          its base (``Hermes-3-Llama-3.1-8B``,
                                      ``Hermes-2-Pro-Mistral-7B``, ``Llama-xLAM-2-8b-fc-r``)
``KIMI_LINE`` (85)      kimi_k3       a Kimi line with a format of its own, before other
                                      Kimi names (``Kimi-K3`` would be ``kimi_k2`` by
                                      ``kimi``)
``KIMI`` (80)           kimi_k2,      Kimi before Qwen before DeepSeek (distills and
                        kimi_k3       merges); ``k3`` alone is K3 as ``k2`` alone is K2
``QWEN_LINE`` (75)      qwen3_coder   a Qwen line with a format of its own, before plain
                                      Qwen
``QWEN`` (70)           hermes
``DEEPSEEK_LINE`` (65)  deepseek_v32, a DeepSeek line with a format of its own, before
                        deepseek_v4,  plain DeepSeek (``deepseek-v3.2``, ``deepseek-v4``;
                        deepseek      ``deepseek-v3.2-exp`` kept V3.1's markup)
``DEEPSEEK`` (60)       deepseek
``VENDOR_LINE`` (55)    minimax_m3,   a vendor's model line with a format of its own,
                        hy_v3         before the vendor's (``minimax-m3`` before
                                      ``minimax``, ``hunyuan-hy3`` is Hy3)
``VENDOR`` (50)         glm45,        one vendor's models (GLM-4.5 to 5.x are all
                        minimax_m2,   ``glm45``); ``mimo`` and StepFun's ``step-3.5``
                        mistral,      pick qwen3_coder, whose XML they write; Granite 4
                        gpt_oss,      and ERNIE 4.5 pick hermes
                        seed_oss,
                        gigachat3,
                        longcat,
                        gemma4,
                        olmo3,
                        internlm,
                        phi4_mini,
                        hunyuan_a13b,
                        lfm2,
                        qwen3_coder,
                        hermes
``LLAMA_LINE`` (45)     pythonic      a Llama line with a format of its own, before the
                                      base name (``Llama-4-Scout`` would be
                                      ``llama3_json``)
``BASE`` (40)           llama3_json   a base model that fine-tunes keep in their names
======================  ============  ==================================================

Under ``provider="auto"`` the name chooses a *family* (the ``family`` of the format its rule
picks), and the stream's markers choose the format within it (``parsers.sniff``): the rule's
format is the default, used until a marker decides and for what a format-specific rule needs (a
``<think>`` block opened by the template, the form of call ids). Adding a format to a family is
its ``family=`` keyword; a format of ``EVERY_FAMILY`` follows the prompt rather than the model
and is a member of them all:

==============  ==============================  ================================================
family          formats                         how the markers tell them apart
==============  ==============================  ================================================
``qwen``        hermes, qwen3_coder             ``<tool_call>`` then ``{`` (hermes) or
                                                ``<function=`` (qwen3_coder)
``kimi``        kimi_k2, kimi_k3                their own special tokens (K3's ``<|open|>``,
                                                ``<|close|>``)
``deepseek``    deepseek, deepseek_v32,         their own special tokens (V3.2's and V4's
                deepseek_v4                     DSML blocks by their names)
``glm``         glm45
``minimax``     minimax_m2, minimax_m3          their own opening tags (M3's namespaced)
``mistral``     mistral
``gpt_oss``     gpt_oss
``llama``       llama3_json, pythonic           ``<|python_tag|>`` (llama3_json); a list of
                                                calls only where the name's default is
                                                pythonic (Llama 4): pythonic has no marker
``seed``        seed_oss
``gigachat``    gigachat3
``longcat``     longcat
``gemma``       gemma4
``olmo``        olmo3
``internlm``    internlm
``phi``         phi4_mini
``xlam``        xlam
``hunyuan``     hunyuan_a13b, hy_v3             Hy3's suffixed tags, or ``<tool_calls>`` then
                                                ``<tool_call>`` (hy_v3); ``<tool_calls>[``
``lfm``         lfm2
``*`` (every)   qwen_xml                        tags named after an offered tool, under the
                                                rule of ``QwenXmlParser(tool_tag_rule=True)``
==============  ==============================  ================================================
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .base import ParserContext, ToolCallParser

# The precedences of model-name rules (see the table above).
FINE_TUNE = 90
KIMI_LINE = 85
KIMI = 80
QWEN_LINE = 75
QWEN = 70
DEEPSEEK_LINE = 65
DEEPSEEK = 60
VENDOR_LINE = 55
VENDOR = 50
LLAMA_LINE = 45
BASE = 40

#: The family of formats that follow the prompt rather than the model: members of every family.
EVERY_FAMILY = "*"


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


#: The switches by which a request asks a template for reasoning (``Format.thinking_switch``).
EFFORT, THINKING = "reasoning_effort", "thinking"


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
    #: Models whose chat template opens a ``<think>`` block for them (or the format's own,
    #: ``reads_reasoning``): their text starts inside it and only its close appears (the
    #: reasoning split, ``think.py``).
    thinking_opened: tuple[str, ...] = ()
    #: Models whose chat template opens the ``<think>`` block only when the request asks for
    #: reasoning by ``thinking_switch`` (``RequestFacts.thinking_asked``): Hy3 answers at once
    #: unless asked to think.
    thinking_opened_when_asked: tuple[str, ...] = ()
    #: What asks those models' templates for reasoning: ``EFFORT`` (a ``reasoning_effort``,
    #: Hy3's) or ``THINKING`` (``chat_template_kwargs`` ``thinking`` or ``enable_thinking``
    #: true, DeepSeek V3.1's and V3.2's).
    thinking_switch: str = EFFORT
    #: The parser reads the format's own reasoning block into ``Reasoning`` events (Kimi K3's
    #: think channel), opened by the template for the ``thinking_opened`` models too (it is
    #: told by ``ParserContext.thinking_opened``): the reasoning split leaves it to the parser.
    reads_reasoning: bool = False
    #: How the format writes calls (fixtures for tests, benchmarks and recordings).
    write_calls: CallWriter | None = None
    #: Pieces of the format's markup, for the random-soup property tests.
    markup_pieces: tuple[str, ...] = ()
    #: The model family the format belongs to: under ``provider="auto"`` a model name chooses
    #: a family and the stream's markers the format within it ("": a family of its own).
    family: str = ""

    @property
    def triggers(self) -> str | None:
        """The characters any of the format's markup starts with (the parser's ``TRIGGERS``)."""
        triggers = getattr(self.parser, "TRIGGERS", None)
        return triggers if isinstance(triggers, str) else None

    @property
    def id_style(self) -> str | None:
        """The form of call ids the format's parser asks for (its ``ID_STYLE``)."""
        style = getattr(self.parser, "ID_STYLE", None)
        return style if isinstance(style, str) else None

    @property
    def family_name(self) -> str:
        """The family, the format's own name when it declares none."""
        return self.family or self.name


_FORMATS: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    """Make a format available as ``provider=fmt.name``."""
    _FORMATS[fmt.name] = fmt
    format_for_model.cache_clear()  # a new format's rules may pick a name another did
    return fmt


def formats() -> Mapping[str, Format]:
    """Every registered format by name (in registration order)."""
    return _FORMATS


def family_members(fmt: Format) -> tuple[Format, ...]:
    """The formats of ``fmt``'s family, in registration order: those that declare it, and the
    formats of every family."""
    family = fmt.family_name
    return tuple(
        other
        for other in _FORMATS.values()
        if other.family_name == family or other.family == EVERY_FAMILY
    )


@lru_cache(maxsize=256)
def format_for_model(model: str) -> Format | None:
    """The format a model name picks: the matching rule of highest precedence, then the longest
    pattern; ``None`` when no rule matches.

    Every request asks it (the provider, whether the template opened a reasoning block) of a
    handful of names, and a scan of every format's rules costs 20-30 µs: the answers for the
    last names asked are kept (a bounded cache, emptied when a format registers)."""
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


def thinking_opened(model: str, asked: frozenset[str] = frozenset()) -> bool:
    """Whether a model's chat template opens a ``<think>`` block, so its text starts inside it
    (``asked``: the switches by which the request asks for reasoning, see
    ``Format.thinking_opened_when_asked``).

    Asked of the format the name picks, whatever provider parses the stream: a model line's
    facts sit with its family (``DeepSeek-R1-Distill-Qwen`` is a Qwen)."""
    fmt = format_for_model(model)
    if fmt is None:
        return False
    lowered = model.lower()
    when_asked = fmt.thinking_opened_when_asked if fmt.thinking_switch in asked else ()
    patterns = (*fmt.thinking_opened, *when_asked)
    return any(name_matches(lowered, p) for p in patterns)


def reads_reasoning(model: str) -> bool:
    """Whether the format a model name picks reads its own reasoning block (``Format``)."""
    fmt = format_for_model(model)
    return fmt is not None and fmt.reads_reasoning
