"""Native ``tool_calls`` from any upstream, grouped into logical calls (sans-I/O).

Gateways send ``delta.tool_calls`` in many shapes (FORMATS.md, ``openai``): the index reused
for a second parallel call, a first index of 1, entries without an index or with
``index: null``, two entries for one index in one chunk, ids repeated on every chunk, changing
between chunks or arriving late, names repeated on every delta, ``arguments`` as an object,
``null`` or ``""``, Kilo's shorthand with ``name``/``arguments`` on the entry itself. This
module decides which logical call each entry belongs to; the ``ToolCallAssembler`` then shapes
the output, so native calls and calls parsed from text get the same guarantees.

Grouping rules:
- An integer ``index`` names a slot; an entry without one continues the slot used last.
- A slot's call is replaced by a new one when an entry with a name arrives and the name
  differs, or the call's arguments are already a complete JSON object and the entry brings a
  different id or more argument text (a second call to the same function). Otherwise
  repeated names and changing, repeated or late ids are the same call.
- A call keeps the first id it was given. In stream mode its header leaves once it has a name
  and either an id or argument text, so an id arriving just after the name is still kept;
  argument text that comes before any name is held (that counts as held-back bytes).
- ``null`` arguments are nothing; ``""``, ``{}`` or text mark the call as having arguments. A
  call that never names itself is dropped at the end and counted.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from typing import Any

import orjson

from .calls import Entry, ToolCallAssembler
from .metrics import NULL_REPORT, Report


class _Native:
    __slots__ = ("explicit", "id", "last_id", "name", "pending", "started")

    def __init__(self) -> None:
        self.name: str | None = None
        self.id: str | None = None
        self.last_id: str | None = None
        self.started = False  # handed to the assembler
        self.explicit = False  # arguments were present (even "") before the start
        self.pending: list[str] = []  # argument text held until the call can start


class NativeToolCalls:
    """One choice's native ``tool_calls`` entries in, assembler entries out."""

    def __init__(self, calls: ToolCallAssembler, report: Report = NULL_REPORT) -> None:
        self._calls = calls
        self._report = report
        # Stream mode waits for an id (briefly) because the header can leave only once.
        self._wait_for_id = not calls.buffered
        self._slots: dict[Hashable, _Native] = {}
        self._open: dict[_Native, None] = {}  # open calls in order of appearance
        self._last_slot: Hashable = 0
        #: Characters of argument text held for calls that have no name yet.
        self.held = 0

    def feed(self, entries: Any) -> list[Entry]:
        """The entries of one ``delta.tool_calls`` list."""
        out: list[Entry] = []
        if isinstance(entries, list):
            for entry in entries:
                self._entry(entry, None, out)
        return out

    def feed_message(self, entries: list[Any]) -> list[Entry]:
        """A non-streaming ``message.tool_calls`` list: each element is a whole call, whatever
        ``index`` it carries (some servers put ``index: 0`` on all of them)."""
        out: list[Entry] = []
        for position, entry in enumerate(entries):
            self._entry(entry, ("message", position), out)
        return out

    def finish(self) -> list[Entry]:
        """End of the choice: start what can start, drop what has no name, end everything."""
        out: list[Entry] = []
        for call in list(self._open):
            self._end(call, out)
        self._slots.clear()
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
                self._end(call, out)
            call = self._slots[slot] = _Native()
            self._open[call] = None
        if call_id is not None:
            if call.id is None:
                call.id = call_id
                if call.started:
                    self._calls.set_id(call, call_id)
            call.last_id = call_id
        if call.name is None:
            call.name = name
        if call.started:
            if explicit:
                out.extend(self._calls.arguments(fragment, call))
            return
        if explicit:
            call.explicit = True
        if fragment:
            call.pending.append(fragment)
            self.held += len(fragment)
        if call.name is not None and (
            not self._wait_for_id or call.id is not None or call.pending
        ):
            self._start(call, out)

    def _is_new(self, call: _Native, name: str, call_id: str | None, fragment: str) -> bool:
        if call.name is None:
            return False  # the name of a call whose arguments came first
        if name != call.name:
            return True
        new_id = call_id is not None and call_id != call.last_id
        if not (new_id or fragment.strip()):
            return False
        return call.started and self._calls.complete_object(call)

    def _start(self, call: _Native, out: list[Entry]) -> None:
        assert call.name is not None
        call.started = True
        out.extend(self._calls.start(call.name, call.id, call, native=True))
        pending, call.pending = call.pending, []
        if call.explicit:
            text = "".join(pending)
            self.held -= len(text)
            out.extend(self._calls.arguments(text, call))

    def _end(self, call: _Native, out: list[Entry]) -> None:
        self._open.pop(call, None)
        if not call.started:
            if call.name is None:
                self.held -= sum(map(len, call.pending))
                call.pending = []
                self._report.malformed("missing_name")
                self._report.fallback("dropped")
                return
            self._start(call, out)
        out.extend(self._calls.end(call))


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
