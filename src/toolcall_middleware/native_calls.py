"""Native ``tool_calls`` from any upstream, grouped into logical calls (sans-I/O).

Gateways send ``delta.tool_calls`` in many shapes (docs/formats.md, ``openai``): the index reused
for a second parallel call, a first index of 1, entries without an index or with
``index: null``, two entries for one index in one chunk, ids repeated on every chunk, changing
between chunks or arriving late, names repeated on every delta, ``arguments`` as an object,
``null`` or ``""``, Kilo's shorthand with ``name``/``arguments`` on the entry itself,
interleaved parallel calls. This module decides which logical call each entry belongs to and
when it may leave; the ``ToolCallAssembler`` shapes the output, so native calls and calls
parsed from text get the same guarantees.

Grouping:
- An integer ``index`` names a slot; an entry without one continues the slot used last.
- A slot's call is replaced by a new one when an entry with a name arrives and the name
  differs, or the call's arguments are already a complete JSON object and the entry brings a
  different id or more argument text (a second call to the same function). Otherwise
  repeated names and changing, repeated or late ids are the same call, which keeps the first
  id it was given.
- ``null`` arguments are nothing; ``""``, ``{}`` or text mark the call as having arguments.

Order (stream mode): calls leave one after another, as OpenAI sends them, because clients
treat a change of index as the end of the previous call (the SDK's ``arguments.done``). The
oldest open call streams live; later calls queue until it is over: its arguments form a
complete object, or it has none while the next call has some (a call without arguments),
or the choice ends. A call's header waits for its id until argument text or a later call
arrives, so an id sent just after the name is kept. Argument text that comes before any name
is held and counts as held-back bytes (``held``); queued calls count as buffered (``queued``).
A call that never names itself is dropped at the end and counted. In buffered mode nothing
leaves before the end anyway, so calls are handed over as soon as they have a name.

Unknown tools (``parsers.unknown_tools``, ``drop`` or ``text``): a call to a tool the request
did not offer never reaches the assembler, so the calls that do keep dense indexes. Dropped,
its entries are read and forgotten; as text, its ``{"name": ..., "arguments": `` head, its
argument text as it arrives and its closing ``}`` come out as ``{AS_TEXT: text}`` entries, for
the caller to send as content. It keeps its turn: it ends when it is closed, or when another
named call follows it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Hashable, Iterator
from typing import Any

import orjson

from .calls import Entry, ToolCallAssembler, complete_object
from .metrics import NULL_REPORT, Report
from .parsers.unknown_tools import NativeUnknown, call_as_text

logger = logging.getLogger("toolcall_middleware")

#: The key of an entry that is content text, not a call (a call to an unknown tool, ``text``).
AS_TEXT = "as_text"


class _Native:
    __slots__ = (
        "closed",
        "ended",
        "explicit",
        "fate",
        "id",
        "last_id",
        "name",
        "pending",
        "pending_size",
        "slot",
        "started",
    )

    def __init__(self, slot: Hashable = None) -> None:
        self.slot = slot  # its key in ``NativeToolCalls._slots``
        self.name: str | None = None
        self.id: str | None = None
        self.last_id: str | None = None
        self.started = False  # handed to the assembler
        self.closed = False  # its slot moved on (or the choice ended): no more input
        self.ended = False  # left the assembler
        self.explicit = False  # arguments were present (even "") before the start
        self.pending: list[str] = []  # argument text held until the call starts
        self.pending_size = 0
        #: A call to a tool the request did not offer: ``drop``, ``text`` (then ``"text+"``
        #: once argument text went out), or None.
        self.fate: str | None = None


#: The slot of a call that is over (``_Native.ended``): shared, never changed again.
_ENDED = _Native()
_ENDED.started = _ENDED.closed = _ENDED.ended = True


class NativeToolCalls:
    """One choice's native ``tool_calls`` entries in, assembler entries out."""

    def __init__(
        self,
        calls: ToolCallAssembler,
        report: Report = NULL_REPORT,
        unknown: NativeUnknown | None = None,
    ) -> None:
        """``unknown``: what becomes of calls to tools the request did not offer (``None``:
        they pass like any call)."""
        self._calls = calls
        self._report = report
        self._unknown = unknown
        self._sequential = not calls.buffered
        self._wait_for_id = self._sequential
        self._slots: dict[Hashable, _Native] = {}
        self._open: dict[_Native, None] = {}  # open calls in order of appearance
        self._last_slot: Hashable = 0
        #: Characters of argument text held for calls that have no name yet.
        self.held = 0
        #: Characters of argument text of named calls waiting for their turn.
        self.queued = 0

    def feed(self, entries: Any) -> list[Entry]:
        """The entries of one ``delta.tool_calls`` list."""
        out: list[Entry] = []
        if isinstance(entries, list):
            for entry in entries:
                self._entry(entry, None, out)
        return out

    def continuation(self, entry: Any) -> int | None:
        """The usual delta, cheaply: ``{"index": i, "function": {"arguments": "..."}}`` for
        the only open call, already started; what ``feed`` gives for it is one piece of
        arguments (``argument_entry``) of the call at the output index returned, or nothing
        (-1). ``None`` when it is anything else (use ``feed``).
        """
        if type(entry) is not dict or len(entry) != 2:
            return None
        function = entry.get("function")
        index = entry.get("index")
        if type(function) is not dict or len(function) != 1 or type(index) is not int:
            return None
        fragment = function.get("arguments")
        return self.open_arguments(index, fragment) if type(fragment) is str else None

    def open_arguments(self, index: int, fragment: str) -> int | None:
        """``continuation`` of ``{"index": index, "function": {"arguments": fragment}}``, for
        a reader that has the index and the text apart already."""
        call = self._slots.get(index)
        if call is None or not call.started or call.ended or len(self._open) != 1:
            return None
        self._last_slot = index
        return self._calls.piece(fragment, call)

    def next_call(self, entry: Any) -> list[Entry] | None:
        """A new call's header as a chat path writes it, cheaply: ``{"index": i, "id": "...",
        "function": {"name": "...", "arguments": ""}}`` (other members are not read), for an
        index with no open call, in stream mode, while no call is open or the only open call
        is started and over (its arguments are a complete object, or it was closed). What
        ``feed([entry])`` gives then: the open call's end, and the new call's header, the two
        calls left as ``feed`` leaves them. ``None``, nothing changed, for anything else (use
        ``feed``), also when the open call goes on (the new call would queue behind it)."""
        if type(entry) is not dict or not self._sequential:
            return None
        index, call_id, function = entry.get("index"), entry.get("id"), entry.get("function")
        if type(index) is not int or type(call_id) is not str or type(function) is not dict:
            return None
        name, arguments = function.get("name"), function.get("arguments")
        if not call_id or type(name) is not str or not name or type(arguments) is not str:
            return None
        if arguments or (self._unknown is not None and name not in self._unknown.known):
            return None
        slot = self._slots.get(index)
        if slot is not None and not slot.ended:
            return None  # a call of this index is open: ``_entry`` groups the entry
        out: list[Entry] = []
        if self._open:
            if len(self._open) != 1:
                return None
            (first,) = self._open
            if not first.started or not (first.closed or self._calls.complete_object(first)):
                return None
            self._end(first, out)
        # The new call, as ``_entry`` and ``_start`` make it from its header.
        self._last_slot = index
        call = self._slots[index] = _Native(index)
        call.name, call.id, call.last_id = name, call_id, call_id
        call.explicit = call.started = True
        self._open[call] = None
        out.extend(self._calls.start(name, call_id, call, native=True))
        self._calls.piece("", call)  # (its arguments are there, empty so far)
        return out

    def feed_message(self, entries: list[Any]) -> list[Entry]:
        """A non-streaming ``message.tool_calls`` list: each element is a whole call, whatever
        ``index`` it carries (some servers put ``index: 0`` on all of them)."""
        out: list[Entry] = []
        self._wait_for_id = False  # a whole call has all the id it will get
        for position, entry in enumerate(entries):
            self._entry(entry, ("message", position), out)
        return out

    @property
    def active(self) -> bool:
        """Some native call is still open."""
        return bool(self._open)

    def finish(self) -> list[Entry]:
        """End of the choice (or of its native calls, when a call parsed from text begins):
        every call leaves in order; one without a name is dropped."""
        out = self.end_calls()
        self._slots.clear()
        return out

    def end_calls(self) -> list[Entry]:
        """Every open call leaves and ends now, as ``finish`` does, but the slots are kept:
        argument text that comes for them later is dropped as arriving after the end (an API
        front ends the open calls when text follows them)."""
        out: list[Entry] = []
        if len(self._open) == 1:
            (call,) = self._open
            if call.started:  # what ``_pump`` does with it, once closed: it ends
                self._end(call, out)
                return out
        for call in self._open:
            call.closed = True
        self._pump(out)
        return out

    def _entry(self, entry: Any, slot: Hashable | None, out: list[Entry]) -> None:
        if not isinstance(entry, dict):
            self._report.malformed("invalid_entry")
            self._report.fallback("dropped")
            return
        if slot is None:
            index = entry.get("index")
            slot = index if type(index) is int else self._last_slot
        self._last_slot = slot
        function = entry.get("function")
        source = function if isinstance(function, dict) else entry  # Kilo: top-level fields
        name = source.get("name", entry.get("name"))
        if not isinstance(name, str) or not name:
            name = None
        call_id = entry.get("id")
        if not isinstance(call_id, str) or not call_id:
            call_id = None
        arguments = source["arguments"] if "arguments" in source else entry.get("arguments")
        fragment, explicit = _arguments_text(arguments)

        call = self._slots.get(slot)
        if call is None or (name is not None and self._is_new(call, name, call_id, fragment)):
            if call is not None:
                call.closed = True
            call = self._slots[slot] = _Native(slot)
            self._open[call] = None
        if call.ended:
            # More arguments for a call already judged over (it had none while the next had
            # some): sending them now would corrupt the calls that followed it.
            if fragment.strip():
                self._report.malformed("after_end")
                self._report.fallback("dropped")
            return
        if call_id is not None:
            if call.id is None:
                call.id = call_id
                if call.started:
                    self._calls.set_id(call, call_id)
            call.last_id = call_id
        if call.name is None and name is not None:
            call.name = name
            self.held -= call.pending_size
            self.queued += call.pending_size
        if call.started:
            if explicit:
                out.extend(self._calls.arguments(fragment, call))
            if self._sequential and len(self._open) > 1:
                self._pump(out)  # it may be complete now, letting the next call go
            return
        if explicit:
            call.explicit = True
        if fragment:
            call.pending.append(fragment)
            call.pending_size += len(fragment)
            if call.name is None:
                self.held += len(fragment)
            else:
                self.queued += len(fragment)
        self._pump(out)

    def _is_new(self, call: _Native, name: str, call_id: str | None, fragment: str) -> bool:
        if call.ended:
            return True
        if call.name is None:
            return False  # the name of a call whose arguments came first
        if name != call.name:
            return True
        new_id = call_id is not None and call_id != call.last_id
        if not (new_id or fragment.strip()):
            return False
        if call.started:
            return self._calls.complete_object(call)
        return complete_object(call.pending)

    def _pump(self, out: list[Entry]) -> None:
        """Start and end the calls that may start or end now, in order of appearance."""
        if not self._sequential:
            for call in list(self._open):
                if not call.started and call.name is not None:
                    if self._diverts(call):
                        self._divert(call, out)
                    else:
                        self._start(call, out)
                if call.closed:
                    self._end(call, out)
            return
        while self._open:
            calls: Iterator[_Native] = iter(self._open)
            first = next(calls)
            second = next(calls, None)
            if not first.started:
                if first.name is None:
                    if not first.closed:
                        return  # its name may still come; later calls wait behind it
                    self._end(first, out)
                    continue
                if self._diverts(first):  # a tool the request did not offer: never started
                    self._divert(first, out)
                    if first.closed or (second is not None and second.name is not None):
                        self._end(first, out)
                        continue
                    return
                # Its id may still come, until argument text or a later call does.
                if (
                    self._wait_for_id
                    and first.id is None
                    and not first.pending_size
                    and second is None
                    and not first.closed
                ):
                    return
                self._start(first, out)
                continue
            if first.closed or (
                second is not None
                and second.name is not None
                and (
                    self._calls.complete_object(first)
                    or (second.pending_size and not self._calls.argument_size(first))
                )
            ):
                self._end(first, out)
                continue
            return

    def _start(self, call: _Native, out: list[Entry]) -> None:
        assert call.name is not None
        call.started = True
        out.extend(self._calls.start(call.name, call.id, call, native=True))
        pending, call.pending = call.pending, []
        self.queued -= call.pending_size
        call.pending_size = 0
        if call.explicit:
            out.extend(self._calls.arguments("".join(pending), call))

    def _diverts(self, call: _Native) -> bool:
        """Whether ``call`` (named, not started) is to a tool the request did not offer."""
        unknown = self._unknown
        return call.fate is not None or (unknown is not None and call.name not in unknown.known)

    def _divert(self, call: _Native, out: list[Entry]) -> None:
        """A call to a tool the request did not offer: its head and the argument text it
        holds go out as text, or are forgotten (``unknown``'s policy)."""
        if call.fate is None:
            assert self._unknown is not None and call.name is not None
            call.fate = self._unknown.policy
            logger.warning(
                "a tool call to %r, a tool the request did not offer: %s",
                call.name,
                "sent as text" if call.fate == "text" else "dropped",
            )
            self._report.fallback("passed-as-text" if call.fate == "text" else "dropped")
            if call.fate == "text":
                out.append({AS_TEXT: call_as_text(call.name)})
        text = "".join(call.pending)
        self.queued -= call.pending_size
        call.pending, call.pending_size = [], 0
        if text and call.fate != "drop":
            call.fate = "text+"
            out.append({AS_TEXT: text})

    def _end(self, call: _Native, out: list[Entry]) -> None:
        self._open.pop(call, None)
        call.ended = call.closed = True
        if self._slots.get(call.slot) is call:
            # Its slot only has to say "over" now (later text for it is dropped): one shared
            # marker, so that a long answer does not keep an object per call for the garbage
            # collector to walk.
            self._slots[call.slot] = _ENDED
        if call.started:
            out.extend(self._calls.end(call))
            return
        if call.fate is not None:  # a tool the request did not offer
            if call.fate != "drop":
                out.append({AS_TEXT: "}" if call.fate == "text+" else "{}}"})
            return
        # Never started: it never named itself, so there is nothing to call.
        self.held -= call.pending_size
        call.pending, call.pending_size = [], 0
        self._report.malformed("missing_name")
        self._report.fallback("dropped")


def _arguments_text(value: Any) -> tuple[str, bool]:
    """``(text, present)``: a string as is, an already-parsed value as JSON, ``null`` absent."""
    if value is None:
        return "", False
    if isinstance(value, str):
        return value, True
    try:
        return orjson.dumps(value).decode(), True
    except TypeError:  # e.g. an integer beyond 64 bits
        return json.dumps(value, ensure_ascii=False), True
