"""Rewriting a non-streamed ``chat.completion``: each choice's message in place.

Markup in the text channels and the native ``tool_calls`` go through the same parser, deltas
and assembler as in a stream (text calls first, as a stream would carry them), so a message gets
the same ids, validation and numbering a streaming client would have seen; reasoning split out
of the content joins the reasoning field the message uses; the finish follows the same rule.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import lenient_json
from .calls import Entry, IdFactory, ToolCallAssembler, call_ids_for
from .deltas import DeltaBuilder, finish_reason
from .limits import Budget
from .metrics import NULL_REPORT, Report, report_fallbacks
from .native_calls import AS_TEXT, NativeToolCalls
from .parsers import Tool, ToolCallParser
from .parsers.unknown_tools import native_unknown
from .text_fields import CONTENT, DEFAULT_REASONING, REASONING_FIELDS, text_channels
from .think import ThinkConfig, ThinkSplit

#: ``capture(message as it came, message as rewritten)`` for messages that involved calls.
MessageCapture = Callable[[bytes, dict[str, Any]], None]


def rewrite_completion(
    completion: Any,
    new_parser: Callable[[], ToolCallParser],
    *,
    buffered: bool = False,
    report: Report = NULL_REPORT,
    tools: Sequence[Tool] = (),
    think: ThinkConfig | None = None,
    capture: MessageCapture | None = None,
) -> tuple[bool, int]:
    """Rewrite a ``chat.completion`` in place: whether anything changed, and the number of
    calls it now has. ``new_parser`` makes one parser per choice."""
    choices = completion.get("choices") if isinstance(completion, dict) else None
    if not isinstance(choices, list):
        return False, 0
    changed = False
    found = 0
    for choice in choices:
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            continue
        before = dict(message)
        raw = lenient_json.dumps(message) if capture is not None else b""
        calls = rewrite_message(
            message, new_parser(), buffered=buffered, report=report, tools=tools, think=think
        )
        upstream = choice.get("finish_reason")
        finish = finish_reason(upstream, calls, bool(before.get("tool_calls")))
        if finish != upstream:
            choice["finish_reason"] = finish
            changed = True
        if message != before:
            changed = True
        if capture is not None and (calls or message != before):
            capture(raw, message)
        found += calls
    return changed, found


def rewrite_message(
    message: dict[str, Any],
    parser: ToolCallParser,
    new_id: IdFactory | None = None,
    *,
    buffered: bool = False,
    report: Report = NULL_REPORT,
    tools: Sequence[Tool] = (),
    think: ThinkConfig | None = None,
) -> int:
    """Rewrite a ``choices[].message`` in place; returns the calls it now has."""
    assembler = ToolCallAssembler(
        new_id or call_ids_for(parser),
        buffered=buffered,
        budget=Budget(sys.maxsize),
        report=report,
        tools=tools,
    )
    entries: list[Entry] = []
    split = None if think is None else ThinkSplit(think)
    reasoning_fields = (
        None
        if think is None
        else (tuple(f for f in message if f in REASONING_FIELDS) or DEFAULT_REASONING)
    )
    moved = ""  # reasoning found in other channels
    for fields in text_channels(message):
        builder = DeltaBuilder(assembler, reasoning_fields)
        events = [*parser.feed(message[fields[0]]), *parser.finish()]
        if split is not None:
            if fields == CONTENT:
                events = [*split.route(events), *split.finish()]
            elif message[fields[0]]:
                split.upstream_reasoning()
        builder.add(events, fields)
        text = "".join(d.get(fields[0], "") for d in builder.deltas if "tool_calls" not in d)
        for field in fields:
            message[field] = text
        if reasoning_fields is not None and reasoning_fields[0] not in fields:
            moved += "".join(d.get(reasoning_fields[0], "") for d in builder.deltas)
        entries.extend(e for d in builder.deltas for e in d.get("tool_calls", ()))
    if moved and reasoning_fields is not None:
        for field in reasoning_fields:
            message[field] = (message.get(field) or "") + moved
    strays = parser.strays + (0 if split is None else split.strays)
    report_fallbacks(report, parser.text_fallbacks, strays)
    native = NativeToolCalls(assembler, report, native_unknown(parser))
    native_calls = message.get("tool_calls")
    if isinstance(native_calls, list) and native_calls:
        entries.extend(native.feed_message(native_calls))
    entries.extend(native.finish())
    entries.extend(assembler.close())
    # Calls to tools the request did not offer, as text (``unknown_tools="text"``).
    as_text = "".join(e[AS_TEXT] for e in entries if AS_TEXT in e)
    if as_text:
        message["content"] = (message.get("content") or "") + as_text
        entries = [e for e in entries if AS_TEXT not in e]
    calls = _whole_calls(entries)
    if calls:
        message["tool_calls"] = calls
        if message.get("content") == "":
            message["content"] = None
    elif isinstance(native_calls, list) and native_calls:
        del message["tool_calls"]  # every call was dropped (buffered mode)
    return len(calls)


def _whole_calls(entries: list[Entry]) -> list[Entry]:
    """Stream entries joined into message ``tool_calls`` (no ``index`` in a message)."""
    calls: dict[int, Entry] = {}
    for entry in entries:
        call = calls.get(entry["index"])
        if call is None:
            calls[entry["index"]] = {
                "id": entry["id"],
                "type": "function",
                "function": dict(entry["function"]),
            }
        else:
            call["function"]["arguments"] += entry["function"]["arguments"]
    return [calls[i] for i in sorted(calls)]
