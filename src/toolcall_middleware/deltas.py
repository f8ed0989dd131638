"""Parser events into output deltas, and deltas into output choices.

``DeltaBuilder`` turns a choice's events into the deltas a client is sent, in order: text in
the field it came from (reasoning split out of the content in the stream's reasoning field),
each call's header entry, then its argument fragments joined while nothing comes between them.
``spread_choices`` puts a choice's new deltas in output choices; ``finish_reason`` is the one
rule for what a choice's finish becomes once calls were found or dropped.
"""

from __future__ import annotations

from typing import Any

from .calls import Entry, ToolCallAssembler, argument_entry
from .events import CallArgs, CallEnd, CallStart, Event, Reasoning, Text

Delta = dict[str, Any]
Choice = dict[str, Any]
Chunk = dict[str, Any]
#: One piece of the arguments of the call at an output index, ``(index, text)``: the delta
#: ``piece_delta`` builds. The hot path keeps it apart, so that the SSE fast path writes it
#: from ``PIECE_HEAD``, the index, ``PIECE_MIDDLE``, the JSON text and ``PIECE_TAIL`` instead
#: of building and encoding three dicts and a list for every piece.
Piece = tuple[int, str]
PIECE_HEAD, PIECE_MIDDLE, PIECE_TAIL = (
    b'{"tool_calls":[{"index":',
    b',"function":{"arguments":',
    b"}}]}",
)


def piece_delta(piece: Piece) -> Delta:
    """The delta of one piece of arguments (orjson writes it as ``PIECE_HEAD`` ... above)."""
    return {"tool_calls": [argument_entry(*piece)]}


#: The keys of a choice besides the ones every output choice has of its own.
_CHOICE_KEYS = ("index", "delta", "finish_reason")


class DeltaBuilder:
    """Collects a choice's output deltas in order: text runs, call starts, argument runs.

    ``reasoning_fields``: where ``Reasoning`` text goes (``None``: with the text it came in).
    """

    __slots__ = ("_args", "_text", "calls", "deltas", "reasoning_fields")

    def __init__(
        self, calls: ToolCallAssembler, reasoning_fields: tuple[str, ...] | None = None
    ) -> None:
        self.calls = calls
        self.reasoning_fields = reasoning_fields
        self.deltas: list[Delta] = []
        self._text: Delta | None = None  # the open text delta, if the last was text
        self._args: Entry | None = None  # the open arguments entry, if the last was arguments

    def add(self, events: list[Event], fields: tuple[str, ...]) -> None:
        calls = self.calls
        for event in events:
            if type(event) is Text:
                self._add_text(event.text, fields)
            elif type(event) is CallArgs:
                self.tool_calls(calls.arguments(event.fragment))
            elif type(event) is CallStart:
                self.tool_calls(calls.start(event.name, event.id), merge_header=False)
            elif type(event) is CallEnd:
                self.tool_calls(calls.end())  # the "{}" of a call without arguments, if needed
                self._args = None
            elif type(event) is Reasoning:
                self._add_text(event.text, self.reasoning_fields or fields)

    def tool_calls(self, entries: list[Entry], merge_header: bool = True) -> None:
        """Append entries; argument fragments join the open entry of the same call."""
        for entry in entries:
            open_entry = self._args
            if (
                "id" not in entry
                and open_entry is not None
                and open_entry["index"] == entry["index"]
            ):
                open_entry["function"]["arguments"] += entry["function"]["arguments"]
                continue
            self._text = None
            self.deltas.append({"tool_calls": [entry]})
            self._args = entry if merge_header or "id" not in entry else None

    def _add_text(self, text: str, fields: tuple[str, ...]) -> None:
        delta = self._text
        if delta is None or any(f not in delta for f in fields):
            delta = dict.fromkeys(fields, "")
            self.deltas.append(delta)
            self._text, self._args = delta, None
        for field in fields:
            delta[field] += text


def spread_choices(choice: Choice, deltas: list[Delta], finish_reason: Any) -> list[Choice]:
    """The output choices for ``choice`` with these new deltas and this finish.

    One delta: the choice itself, its key order kept, with the new delta (and finish). Several:
    one choice each, with the choice's index; its other keys (``logprobs``) go on the first
    and the finish on the last. None and no finish: nothing to send.
    """
    if not deltas:
        if finish_reason is None:
            return []
        deltas = [{}]
    elif finish_reason is not None and "tool_calls" in deltas[-1]:
        # The SDK closes a call (``arguments.done``) on the next index or on a later finish
        # chunk: a finish_reason beside the last call's entry would leave it unclosed.
        deltas.append({})
    if len(deltas) == 1:
        choice["delta"] = deltas[0]
        if choice.get("finish_reason") != finish_reason:
            choice["finish_reason"] = finish_reason
        return [choice]
    index = choice.get("index", 0)
    out = [{"index": index, "delta": d, "finish_reason": None} for d in deltas]
    out[0].update({k: v for k, v in choice.items() if k not in _CHOICE_KEYS})
    out[-1]["finish_reason"] = finish_reason
    return out


def finish_reason(upstream: Any, calls: int, saw_calls: bool) -> Any:
    """What a choice's finish becomes: ``tool_calls`` when it has ``calls`` and the upstream
    said ``stop``; ``stop`` when the upstream said ``tool_calls`` but every call it had
    (``saw_calls``) was dropped, leaving nothing for a client to run; else as it came."""
    if upstream == "stop" and calls:
        return "tool_calls"
    if upstream == "tool_calls" and saw_calls and not calls:
        return "stop"
    return upstream
