"""What a front reads from the (already repaired) Chat Completions answer: typed events.

``ChatReader`` turns chunk dicts, or a whole ``chat.completion``, into these; each front encodes
them in its own API. Only choice 0 is read (the fronts never ask for more than one).

A call is ``CallOpened``, zero or more ``ArgsDelta``, ``CallClosed``; calls never overlap,
and text or reasoning never falls inside a call (it ends the open call first). (The names
differ from the parsers' ``CallStart``/``CallArgs``/``CallEnd`` in ``events.py``: those are
markup read from model text, these a front's view of the repaired answer.) ``Finish`` or
``UpstreamError`` is the last event of a response.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .failures import UpstreamFailure

TextChannel = Literal["content", "refusal"]


@dataclass(slots=True)
class ReasoningDelta:
    #: From ``reasoning_content``, else ``reasoning`` (servers often send both, the same text).
    text: str


@dataclass(slots=True)
class TextDelta:
    text: str
    channel: TextChannel = "content"


@dataclass(slots=True)
class CallOpened:
    #: Dense from 0 in order of appearance.
    index: int
    #: The upstream's own id, or one from the reader's id factory when it gave none (or reused
    #: one): always a string, unique within the response.
    id: str
    name: str
    #: True when ``id`` is the upstream's own.
    upstream_id: bool = True


@dataclass(slots=True)
class ArgsDelta:
    index: int
    #: A piece of the arguments text as the upstream wrote it.
    fragment: str


@dataclass(slots=True)
class CallClosed:
    index: int
    id: str
    name: str
    #: The whole arguments text as written (``"{}"`` for a call that sent none).
    raw: str
    #: The arguments as a JSON object, per the one policy (``calls.arguments_object``): the
    #: object as written, else ``{"input": raw}``.
    arguments: dict[str, Any]
    #: JSON text of ``arguments``: ``raw`` itself when that was an object.
    text: str
    #: ``None``, ``"invalid_json"`` or ``"not_object"``.
    problem: str | None


@dataclass(slots=True)
class Finish:
    #: The upstream's ``finish_reason`` (``stop``, ``tool_calls``, ``length``, ...).
    reason: str
    #: The upstream's usage object, if it sent one (it comes after the finish chunk).
    usage: Mapping[str, Any] | None
    #: vLLM's ``stop_reason``: the stop string that matched, when one did.
    matched_stop: str | None
    #: Whether any call was emitted.
    tool_calls: bool


@dataclass(slots=True)
class UpstreamError:
    failure: UpstreamFailure


Event = ReasoningDelta | TextDelta | CallOpened | ArgsDelta | CallClosed | Finish | UpstreamError
