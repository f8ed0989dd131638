"""DeepSeek's DSML tool calls: the grammar of V3.2, V4 and V4.1 (``deepseek_v32``,
``deepseek_v4``).

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Hangzhou</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

Every tag starts with DSML's special token ``｜DSML｜`` (full-width bars, U+FF5C). V3.2 names the
block ``function_calls``, V4 ``tool_calls``, V4.1 `` calls`` with a space, and V4.1 also spaces
its `` invoke`` and `` parameter`` tags. One reader takes every spelling wherever it stands:
they are special-token markup a model never writes as prose, so a V4 stream that writes a V3.2
block (a checkpoint served under the other name) loses nothing.

Parallel calls are sibling invokes; an invoke without parameters is a call without arguments.
``string="true"`` marks a raw string value, ``string="false"`` a JSON one. Values are typed as
DeepSeek's peers type them (see ``DsmlArguments``), and an invoke whose body is a JSON object
instead of parameters (what constrained decoding writes) streams that object as written.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Sequence

from ..events import CallArgs, Event
from .base import ParserContext, Tool
from .descriptor import raw_values
from .driver import marker_tables, skip_space
from .jsonscan import DelimitedArguments
from .minimax_m2 import attribute_name
from .schema import STRING, allows_null, convert_value, json_string, parameter_schema, schema_type
from .xmlargs import ArgumentsWriter, XmlCallParser

#: DSML's special token, which every tag starts with (U+FF5C on both sides).
DSML = "｜DSML｜"
#: The block's name in V3.2, V4 and V4.1.
V32_BLOCK, V4_BLOCK, V41_BLOCK = "function_calls", "tool_calls", " calls"
BLOCKS = (V32_BLOCK, V4_BLOCK, V41_BLOCK)
OPENS = tuple(f"<{DSML}{block}>" for block in BLOCKS)
CLOSES = tuple(f"</{DSML}{block}>" for block in BLOCKS)
# V4.1 spaces the tag names.
INVOKES = (f"<{DSML}invoke", f"<{DSML} invoke")
INVOKE_ENDS = (f"</{DSML}invoke>", f"</{DSML} invoke>")
PARAMETERS = (f"<{DSML}parameter", f"<{DSML} parameter")
PARAMETER_ENDS = (f"</{DSML}parameter>", f"</{DSML} parameter>")

_STRING_FLAG = re.compile(r"""\bstring\s*=\s*["']?(true|false)""")
#: Parameter names a model wraps all of a call's arguments in (unwrapped, see DsmlArguments).
WRAPPERS = frozenset({"arguments", "input"})
# Kinds of held values besides the schema's types (see ``DsmlArguments.convert``).
_JSON = "dsml-json"
_JSON_STRING = "dsml-json-string"
_JSON_NULLABLE_STRING = "dsml-json-nullable-string"
_WRAPPER = "dsml-wrapper"


class _State(enum.IntEnum):
    TEXT = 0
    BLOCK = enum.auto()  # between invokes: framing
    INVOKE_HEADER = enum.auto()  # ` name="..."`, up to ">"
    INVOKE = enum.auto()  # between parameters: framing, or the start of a JSON body
    PARAMETER_HEADER = enum.auto()  # ` name="..." string="..."`, up to ">"
    VALUE = enum.auto()
    JSON_BODY = enum.auto()  # an invoke's arguments written as one JSON object


# Module names for the members: looking a member up on its enum class runs Python code.
_TEXT, _BLOCK, _INVOKE_HEADER, _INVOKE, _PARAMETER_HEADER, _VALUE, _JSON_BODY = _State

_CALL_ENDS = (*INVOKE_ENDS, *CLOSES, *INVOKES)  # each ends the call open
_SEARCH, _STRAYS = marker_tables(
    _State,
    {
        _TEXT: (*OPENS, *INVOKES),
        _BLOCK: (*INVOKES, *CLOSES),
        _INVOKE_HEADER: (">",),
        _INVOKE: (*PARAMETERS, *_CALL_ENDS),
        _PARAMETER_HEADER: (">",),
        _VALUE: (*PARAMETER_ENDS, *PARAMETERS, *_CALL_ENDS),
        _JSON_BODY: _CALL_ENDS,
    },
    # DSML tags are special-token markup: one where the grammar has no place for it is a stray.
    strays={
        _TEXT: (*CLOSES, *INVOKE_ENDS, *PARAMETER_ENDS),
        _BLOCK: (*OPENS, *INVOKE_ENDS, *PARAMETER_ENDS),
        _INVOKE: (*OPENS, *PARAMETER_ENDS),
        _VALUE: OPENS,
        _JSON_BODY: (*OPENS, *PARAMETERS, *PARAMETER_ENDS),
    },
)


class DsmlArguments(ArgumentsWriter):
    """One call's arguments from DSML parameters, typed as the peers type them.

    - ``string="true"``: the raw text is the value; a string, unless the tool's schema declares
      another type, which it is converted to (``42`` for an integer). The word ``null`` is a
      string here. A string streams as it arrives.
    - ``string="false"``: the text is JSON. A declared type converts it as the XML formats do;
      a declared string takes a JSON string's contents, ``null`` only where the schema allows
      null, else the text as written; an undeclared parameter is the JSON value, or the text
      as a string when it is not JSON.
    - A first parameter ``arguments`` or ``input`` that the tool does not declare, whose value
      is an object of the tool's parameters, is unwrapped: its members are the arguments.

    Values are the text between the tags exactly: no newline around them is framing.
    """

    __slots__ = ("_wrapper",)

    def __init__(self, tool: Tool | None) -> None:
        super().__init__(tool, newline_framing=False)
        self._wrapper: tuple[str, str | None] | None = None  # a wrapper's key and flag

    def parameter(self, key: str, flag: str | None, out: list[Event]) -> None:
        """A parameter starts; ``flag`` is its ``string`` attribute (``None``: none)."""
        tool = self.tool
        if (
            not self.count
            and not self.parameter_open
            and key in WRAPPERS
            and tool is not None
            and tool.property_names
            and key not in tool.property_names
        ):
            self._wrapper = (key, flag)
            self.hold(_WRAPPER)  # all of it held: the object decides
            return
        if flag is None:
            self.open(key, out)
            return
        schema = parameter_schema(tool, key)
        declared = schema_type(schema)
        if flag == "true":
            self.open(key, out, declared, null_word=False)
        elif schema is None:
            self.open(key, out, _JSON)
        elif declared == STRING:
            kind = _JSON_NULLABLE_STRING if allows_null(schema) else _JSON_STRING
            self.open(key, out, kind)
        else:
            self.open(key, out, declared)

    def close(self, out: list[Event]) -> None:
        wrapper = self._wrapper
        if wrapper is not None and self.parameter_open:
            self._wrapper = None
            self._unwrap(*wrapper, self.take(), out)
            return
        super().close(out)

    def convert(self, value: str, kind: str) -> str:
        if kind == _JSON:
            parsed = _json(value)
            return value_json(parsed) if parsed is not _NOT_JSON else json_string(value)
        if kind in (_JSON_STRING, _JSON_NULLABLE_STRING):
            parsed = _json(value)
            if isinstance(parsed, str):
                return json_string(parsed)
            if parsed is None and kind == _JSON_NULLABLE_STRING:
                return "null"
            return json_string(value)
        return convert_value(value, kind)

    def _unwrap(self, key: str, flag: str | None, text: str, out: list[Event]) -> None:
        """The wrapper parameter closed: its object's members, or itself as a member."""
        value = _json(text)
        inner = _json(value) if isinstance(value, str) else value  # (an object in a string)
        tool = self.tool
        if isinstance(inner, dict) and tool is not None and set(inner) <= tool.property_names:
            for name, member in inner.items():
                self.member(name, value_json(member), out)
        elif flag == "true" or value is _NOT_JSON:
            self.member(key, json_string(text), out)
        else:
            self.member(key, value_json(value), out)


_NOT_JSON = object()


def _refuse_constant(name: str) -> object:
    raise ValueError(name)  # NaN and Infinity: JSON has no way to write them


def _json(text: str) -> object:
    """The JSON value ``text`` is, or ``_NOT_JSON``."""
    try:
        value: object = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return _NOT_JSON
    return value


def value_json(value: object) -> str:
    """A value ``_json`` read, as JSON text."""
    return json.dumps(value, ensure_ascii=False)


class DsmlParser(XmlCallParser):
    TRIGGERS = "<"
    #: An invoke may hold the model's own JSON object, forwarded as written (so the end of the
    #: stream may cut it); parameters always make a whole object.
    FORWARDS_MODEL_JSON = True
    _searches = _SEARCH
    _strays = _STRAYS

    def __init__(self, context: ParserContext) -> None:
        super().__init__(context)
        self._state = _TEXT
        self._in_block = False
        self._opening = ""  # the invoke tag that opened the header (text again if it ends)
        self._header = ""
        #: Nothing but whitespace came yet in the call open now: a JSON body may still start.
        self._body_may_start = False
        self._body: DelimitedArguments | None = None

    def _writer(self, tool: Tool | None) -> ArgumentsWriter:
        return DsmlArguments(tool)

    def _held_markup(self) -> int:
        state = self._state
        if state is _INVOKE_HEADER:
            return len(self._opening) + len(self._header)
        if state is _PARAMETER_HEADER:
            return len(self._header)
        body = self._body
        return 0 if body is None else body.held

    def _segment(self, segment: str, out: list[Event]) -> None:
        state = self._state
        if state is _VALUE:
            self._arguments.value(segment, out)
        elif state is _JSON_BODY:
            self._add_body(segment, out)
        elif state is _INVOKE_HEADER or state is _PARAMETER_HEADER:
            self._header += segment
        elif state is _INVOKE and self._body_may_start:
            start = skip_space(segment, 0)
            if start == len(segment):
                return
            if segment[start] == "{":  # the arguments as one JSON object
                self._body = DelimitedArguments()
                self._state = _JSON_BODY
                self._add_body(segment[start:], out)
            self._body_may_start = False  # (framing text, or the body: none after it)
        # BLOCK, INVOKE: what stands between the tags is framing.

    def _add_body(self, text: str, out: list[Event]) -> None:
        assert self._body is not None
        pieces: list[str] = []
        self._body.feed(text, pieces)
        if pieces:
            out.append(CallArgs("".join(pieces)))

    def _marker(self, marker: str, out: list[Event]) -> None:
        state = self._state
        if marker == ">":  # the end of a header
            if state is _INVOKE_HEADER:
                self._start_call(attribute_name(self._header), out)
                self._body_may_start = True
                self._state = _INVOKE
            else:
                flag = _STRING_FLAG.search(self._header)
                writer = self._arguments
                assert isinstance(writer, DsmlArguments)
                writer.parameter(
                    attribute_name(self._header), None if flag is None else flag.group(1), out
                )
                self._body_may_start = False
                self._state = _VALUE
            return
        if marker in PARAMETERS:  # in INVOKE, or a VALUE its closing tag never ended
            self._arguments.close(out)
            self._header = ""
            self._state = _PARAMETER_HEADER
        elif marker in PARAMETER_ENDS:
            self._arguments.close(out)
            self._state = _INVOKE
        elif marker in OPENS:
            self._in_block = True
            self._state = _BLOCK
        elif marker in CLOSES:
            if state is not _BLOCK:
                self._end_call(out)
            self._in_block = False
            self._state = _TEXT
        elif marker in INVOKE_ENDS:
            self._end_call(out)
            self._state = _BLOCK if self._in_block else _TEXT
        else:  # an invoke starts (ending the call open, if any)
            if state is _TEXT:
                self._in_block = False
            elif state is not _BLOCK:
                self._end_call(out)
            self._opening = marker
            self._header = ""
            self._state = _INVOKE_HEADER

    def _end_call(self, out: list[Event]) -> None:
        body = self._body
        if body is not None:
            pieces: list[str] = []
            body.finish(pieces)
            if pieces:
                out.append(CallArgs("".join(pieces)))
            self._body = None
        super()._end_call(out)

    def _close(self, out: list[Event]) -> None:
        state = self._state
        if state is _INVOKE_HEADER:
            self._give_back(self._opening + self._header, out)
        elif state is not _TEXT and state is not _BLOCK:
            self._end_call(out)  # cut off: keep what arrived
        self._state = _TEXT
        self._in_block = False


def write_dsml(calls: Sequence[tuple[str, str]], block: str, spaced: bool = False) -> str:
    """Calls in DSML markup in ``block`` (``spaced``: V4.1's tag names)."""
    space = " " if spaced else ""
    invoke, parameter = f"{DSML}{space}invoke", f"{DSML}{space}parameter"
    lines = [f"<{DSML}{block}>"]
    for name, arguments in calls:
        lines.append(f'<{invoke} name="{name}">')
        for key, value in raw_values(arguments):
            string = "true" if isinstance(json.loads(arguments)[key], str) else "false"
            lines.append(f'<{parameter} name="{key}" string="{string}">{value}</{parameter}>')
        lines.append(f"</{invoke}>")
    lines.append(f"</{DSML}{block}>")
    return "\n".join(lines)


#: Pieces of DSML markup for the random-soup property tests.
MARKUP_PIECES = (
    *OPENS,
    *CLOSES,
    f'<{DSML}invoke name="bash">',
    f'<{DSML} invoke name="get_weather">',
    *INVOKE_ENDS,
    f'<{DSML}parameter name="command" string="true">',
    f'<{DSML}parameter name="days" string="false">',
    f'<{DSML} parameter name="city" string="true">',
    f'<{DSML}parameter name="input" string="false">',
    *PARAMETER_ENDS,
    INVOKES[0],
    '{"command": "ls"}',
    "<｜DSM",
)
