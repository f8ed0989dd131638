"""A model family's formats, and the markers that tell them apart in a stream.

Under ``provider="auto"`` the model name picks a format (``descriptor.format_for_model``), and a
``SniffingParser`` reads the stream over that format's family (``descriptor.family_members``).
It passes plain text on until a marker decides which format reads the rest, in this order:

1. ``<tool_call>``, when members besides the default write it: what follows it says which;
2. a marker the default format (the name's) looks for in plain text: the default reads on;
3. another member's own markers (its ``sniff_markers``): that member reads on;
4. a tag named after an offered tool (the formats of every family, ``qwen_xml``): read as one
   call under the tool-tag rule, then plain text again.

A marker that begins, or is begun by, one earlier in that order is left out (a search takes the
shorter as soon as it is whole). A stray special token of any member is dropped. With no
default (``provider="sniff"``, and ``auto`` for a name no rule matches) the family is every
format, and only markers decide.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from . import create_parser
from .base import ParserContext
from .descriptor import EVERY_FAMILY, Format, family_members, formats
from .driver import plain_text_markers

TOOL_CALL = "<tool_call>"
#: The formats a ``<tool_call>`` may open: the characters after it tell them apart.
TOOL_CALL_FORMATS = ("hermes", "qwen3_coder", "glm45")


@dataclass(frozen=True, eq=False)
class Family:
    """The formats a stream's markers may choose between, and the one the name chose."""

    members: tuple[str, ...]
    #: The format the model name picks (``None``: none; plain text until a marker decides).
    default: str | None
    #: The markers that decide, each with the format that reads on from it.
    targets: Mapping[str, str]
    #: ``<tool_call>`` is judged by what follows it (``tool_call_flavour``).
    judges_tool_call: bool
    #: Special tokens of the members with no place in plain text (dropped, counted).
    strays: frozenset[str]
    #: Tags named after offered tools are calls under the tool-tag rule.
    reads_tool_tags: bool
    #: No member but the default and the formats of every family.
    alone: bool
    #: What the default looks for in plain text is known (its parser runs on the shared
    #: driver); when it is not, the default reads the whole stream.
    default_known: bool
    #: Every character the markup of a member the stream may be read as starts with (see
    #: ``ToolCallParser``).
    triggers: str


def clashes(marker: str, kept: Iterable[str]) -> bool:
    """Whether ``marker`` begins, or is begun by, one of ``kept``."""
    return any(marker.startswith(k) or k.startswith(marker) for k in kept)


@functools.cache  # one entry per format (an unknown name raises, and is not kept): bounded
def family_of(provider: str | None) -> Family:
    """The family of format ``provider``, with it as the default; ``None``: every format."""
    if provider is None:
        default = None
        members = tuple(formats().values())
    else:
        default = formats()[provider]
        members = family_members(default)
    writers = {m.name for m in members if m.name in TOOL_CALL_FORMATS}
    judges = bool(writers) and writers != {provider}
    first = [TOOL_CALL] if judges else []
    targets: dict[str, str] = {}

    def add(markers: Iterable[str], fmt: Format) -> None:
        for marker in markers:
            if not clashes(marker, [*first, *targets]):
                targets[marker] = fmt.name

    strays: set[str] = set()
    known = True
    if default is not None:
        plain = plain_text_markers(create_parser(default.name, ParserContext()))
        known = plain is not None
        found, default_strays = plain or ((), frozenset())
        strays |= default_strays
        add((m for m in found if m not in default_strays), default)
    for member in members:
        add(member.sniff_markers, member)
        strays.update(member.stray_tokens)
    kept = [*first, *targets]
    kept_strays = frozenset(s for s in strays if not clashes(s, kept))
    # The formats a stream of the family may be read as: a member no marker hands the stream
    # to (pythonic beside llama3_json) adds no trigger of its own to it.
    reachable = {provider, *targets.values(), *(writers if judges else ())}
    reachable.update(m.name for m in members if m.family == EVERY_FAMILY)
    triggers = {c for m in members if m.name in reachable for c in m.triggers or ""}
    triggers.update(m[0] for m in (*first, *targets, *kept_strays))
    return Family(
        members=tuple(m.name for m in members),
        default=provider,
        targets=targets,
        judges_tool_call=judges,
        strays=kept_strays,
        reads_tool_tags=any(m.family == EVERY_FAMILY for m in members),
        alone=all(m.name == provider or m.family == EVERY_FAMILY for m in members),
        default_known=known,
        triggers="".join(sorted(triggers)),
    )
