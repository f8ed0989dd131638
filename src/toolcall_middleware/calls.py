"""Turning tool calls into OpenAI ``tool_calls`` delta entries, exactly as clients need them.

Every tool call a client sees leaves through here, whether a parser found it in model text or
the upstream sent it as native ``tool_calls``: ``index`` dense from 0 in order of appearance
(across both sources within a choice), ``id``/``type``/``name`` on the first entry only (with
``arguments: ""``), argument fragments after, ``"{}"`` for a call that ended without any.

Several calls can be open at once (native upstreams interleave parallel calls), each under a
key its source chooses; parser calls use ``TEXT``. In buffered mode nothing leaves before
``close``: each call is then one complete entry whose arguments were checked as JSON.

A parsed call whose name is not a function name (a name slot holding ``0``, ``""`` or an id)
is held whole until it ends; it then goes to the one offered tool its arguments fit, or is
dropped (counted and logged): no client gets a call it cannot run.
"""

from __future__ import annotations

import logging
import secrets
import string
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import orjson

from . import lenient_json, repair_log
from .limits import Budget
from .metrics import NULL_REPORT, Report
from .parsers.base import Tool, ToolCallParser
from .parsers.names import is_function_name, sole_tool, tool_for_arguments

logger = logging.getLogger("toolcall_middleware")

Entry = dict[str, Any]
IdFactory = Callable[[], str]

#: The key of calls found by the provider parser: one is open at a time.
TEXT = "text"

_ALNUM = string.ascii_letters + string.digits


def argument_entry(index: int, fragment: str) -> Entry:
    """The entry of one more piece of the arguments of the call at output ``index``."""
    return {"index": index, "function": {"arguments": fragment}}


def piece_entries(index: int, fragment: str) -> list[Entry]:
    """The entries for a piece that ``ToolCallAssembler.piece`` answered with ``index``."""
    return [] if index < 0 else [argument_entry(index, fragment)]


def openai_call_id() -> str:
    return "call_" + secrets.token_hex(12)


def mistral_call_id() -> str:
    """Mistral rejects ids that are not exactly nine alphanumeric characters on the next turn."""
    return "".join(secrets.choice(_ALNUM) for _ in range(9))


def call_ids_for(parser: ToolCallParser) -> IdFactory:
    """Ids in the style a parser asks for (its ``id_style``), looked up as each id is made:
    a sniffing parser only knows its format once the markup has shown it."""

    def new_id() -> str:
        if parser.id_style == "mistral9":
            return mistral_call_id()
        return openai_call_id()

    return new_id


def arguments_object(raw: str) -> tuple[dict[str, Any], str, str | None]:
    """The one policy for a call's whole arguments text: ``(object, text, problem)``.

    A JSON object is kept exactly as written (``text`` is ``raw``); blank is the explicit empty
    call ``{}``; anything else (broken JSON, JSON nested deeper than the parser takes, or JSON
    that is not an object) becomes ``{"input": "<raw>"}`` so the client still gets an object
    and nothing is lost. ``problem`` is None, ``"invalid_json"`` or ``"not_object"``.
    """
    if not raw.strip():
        return {}, "{}", None
    try:
        value = orjson.loads(raw)  # strict: arguments go to tools, often read by JavaScript
    except orjson.JSONDecodeError:
        return {"input": raw}, _wrap(raw), "invalid_json"
    if not isinstance(value, dict):
        return {"input": raw}, _wrap(raw), "not_object"
    return value, raw, None


def checked_arguments(raw: str) -> tuple[str, str | None]:
    """Buffered-mode arguments: ``(arguments, problem)`` by ``arguments_object``'s policy."""
    _, text, problem = arguments_object(raw)
    return text, problem


def complete_object(parts: list[str]) -> bool:
    """Whether the text in ``parts`` is one complete JSON object (cheap test first)."""
    if not parts or not parts[-1].rstrip().endswith("}"):
        return False
    try:
        return isinstance(orjson.loads("".join(parts)), dict)
    except orjson.JSONDecodeError:
        return False


def _wrap(raw: str) -> str:
    return lenient_json.dumps({"input": raw}).decode()


class _Call:
    __slots__ = ("checked", "explicit", "id", "index", "name", "native", "parts", "size", "unnamed")

    def __init__(self, name: str, call_id: str | None, native: bool) -> None:
        self.index = -1  # the output index, once the call has one
        self.id = call_id
        self.name = name
        self.native = native
        self.explicit = not native  # a parser's call end is explicit; natives must say so
        self.parts: list[str] | None = []  # argument text kept (None: over the budget)
        self.size = 0  # characters of argument text
        self.checked = -1  # the size at which ``parts`` last held a complete JSON object
        self.unnamed = False  # held whole until its arguments choose its tool


class ToolCallAssembler:
    """The calls of one choice: numbers them, shapes their entries, holds them when buffered."""

    def __init__(
        self,
        new_id: IdFactory = openai_call_id,
        *,
        buffered: bool = False,
        budget: Budget | None = None,
        report: Report = NULL_REPORT,
        tools: Sequence[Tool] = (),
        check_arguments: bool = True,
    ) -> None:
        """``tools``: the request's, against which a call that names no function is resolved.
        ``check_arguments``: in stream mode, read each call's whole arguments at its end to
        count (``report.malformed``) those that are not a JSON object; off for a caller that
        reads them itself and counts none of it."""
        self._new_id = new_id
        self.buffered = buffered
        self._tools = tools
        self._budget = budget if budget is not None else Budget()
        self._report = report
        # Stream mode keeps a copy of each call's arguments only to count malformed ones.
        self._counting = report is not NULL_REPORT
        self._check_arguments = check_arguments
        #: Calls given an output index (in buffered mode: the calls ``close`` emitted).
        self.count = 0
        self._open: dict[Hashable, _Call] = {}
        self._held: list[_Call] = []  # buffered mode: every call, in order of appearance
        self._ids: set[str] = set()

    def start(
        self, name: str, call_id: str | None, key: Hashable = TEXT, *, native: bool = False
    ) -> list[Entry]:
        out = self.end(key) if key in self._open else []
        call = self._open[key] = _Call(name, call_id, native)
        if not native and not is_function_name(name) and not self._offered(name):
            sole = sole_tool(self._tools)
            if sole is None:
                call.unnamed = True  # held, whole, until its arguments tell its tool
            else:
                call.name = sole.name
        if not (self.buffered or native or self._counting or call.unnamed):
            call.parts = None  # nobody would look at the copy
        if self.buffered:
            self._held.append(call)
        elif not call.unnamed:
            out.append(self._header(call))
        return out

    def _offered(self, name: str) -> bool:
        """A name the request offers a tool by, however it is spelled (``a&b``): the client
        can run it."""
        return any(tool.name == name for tool in self._tools)

    def is_open(self, key: Hashable = TEXT) -> bool:
        return key in self._open

    @property
    def holding(self) -> bool:
        """A call is open, or held to leave at the end (buffered mode): the end of the choice
        would still send something for it."""
        return bool(self._open or self._held)

    def set_id(self, key: Hashable, call_id: str) -> None:
        """An id that arrived after the call began: used if the call has not left yet."""
        call = self._open.get(key)
        if call is not None and call.id is None and call.index < 0:
            call.id = call_id

    def arguments(self, fragment: str, key: Hashable = TEXT) -> list[Entry]:
        index = self.piece(fragment, key)
        return piece_entries(index, fragment)

    def piece(self, fragment: str, key: Hashable = TEXT) -> int:
        """``arguments`` without building the entry (the hot path writes it from a template):
        the output index of the call this piece of arguments streams in now, or -1 when
        nothing goes out for it (no call open, an empty piece, a call held whole)."""
        call = self._open.get(key)
        if call is None:
            return -1
        call.explicit = True
        if not fragment:
            return -1
        call.size += len(fragment)
        parts = call.parts
        if parts is not None:
            if self.buffered or call.unnamed:
                self._budget.take(len(fragment))
                parts.append(fragment)
                return -1
            if call.size > self._budget.limit:
                call.parts = None  # too long to keep a copy: it just goes unchecked
            else:
                parts.append(fragment)
        return call.index

    def argument_size(self, key: Hashable) -> int:
        """Characters of argument text the open call has had so far."""
        call = self._open.get(key)
        return 0 if call is None else call.size

    def complete_object(self, key: Hashable) -> bool:
        """Whether the open call's arguments so far are a complete JSON object."""
        call = self._open.get(key)
        if call is None or call.parts is None or not call.size:
            return False
        if call.checked == call.size:
            return True
        if not complete_object(call.parts):
            return False
        call.checked = call.size
        return True

    def end(self, key: Hashable = TEXT) -> list[Entry]:
        """Close a call; in stream mode an empty call still needs valid JSON arguments."""
        call = self._open.pop(key, None)
        if call is None or self.buffered:
            return []
        if call.unnamed:
            entry = self._complete(call)
            return [] if entry is None else [entry]
        parts, call.parts = call.parts, None
        if not call.explicit:
            self._report.malformed("missing_arguments")
        if not call.size:
            return [{"index": call.index, "function": {"arguments": "{}"}}]
        if parts is not None and self._check_arguments:
            # Stream mode forwards what the model wrote; a problem is only counted.
            problem = checked_arguments("".join(parts))[1]
            if problem is not None:
                self._report.malformed(problem)
        return []

    def close(self) -> list[Entry]:
        """The end of the choice: close every open call; buffered mode emits them all now."""
        out: list[Entry] = []
        for key in list(self._open):
            out.extend(self.end(key))
        self._open.clear()
        held, self._held = self._held, []
        for call in held:
            entry = self._complete(call)
            if entry is not None:
                out.append(entry)
        return out

    def _header(self, call: _Call) -> Entry:
        call.index = self.count
        self.count += 1
        call_id = call.id
        if not call_id or call_id in self._ids:
            call_id = call.id = self._new_id()
        self._ids.add(call_id)
        self._report.tool_call(call.native)
        if isinstance(self._report, repair_log.LoggedReport):  # the chat path, at debug level
            self._report.call_found(call.index, call_id, call.name, call.native)
        return {
            "index": call.index,
            "id": call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }

    def _complete(self, call: _Call) -> Entry | None:
        """A held call as one entry (arguments checked when buffered), or None when it is
        dropped."""
        raw = "".join(call.parts or ())
        self._budget.used -= call.size
        call.parts = None
        problem = None
        if call.unnamed:
            self._name_from_arguments(call, raw)
        if not call.name or call.unnamed:
            problem = "missing_name"
        elif not call.explicit:
            problem = "missing_arguments"
        if problem is not None:
            self._report.malformed(problem)
            self._report.fallback("dropped")
            return None
        arguments = raw or "{}"  # stream mode: as the model wrote them
        if self.buffered:
            arguments, problem = checked_arguments(raw)
            if problem is not None:
                self._report.malformed(problem)
                self._report.fallback("wrapped")
        entry = self._header(call)
        entry["function"]["arguments"] = arguments
        return entry

    def _name_from_arguments(self, call: _Call, arguments: str) -> None:
        """Name a call that named no function after the one offered tool its arguments fit."""
        tool = tool_for_arguments(self._tools, arguments)
        if tool is None:
            logger.warning(
                "dropped a tool call that names no function (name %r, id %r): no "
                "single offered tool fits its arguments",
                call.name,
                call.id,
            )
        else:
            call.name, call.unnamed = tool.name, False
