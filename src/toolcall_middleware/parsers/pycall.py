"""Python calls as text: the JSON arguments of ``name(key=literal, ...)``, and the repairs of
the calls small models get wrong.

``call_arguments`` converts a call with literal keyword arguments only. ``repaired_arguments``
also reads the mistakes that leave no doubt what the model meant (``lfm2`` uses it; docs/
formats.md says which): raw line breaks, tabs and NUL characters inside a string, integers
written with leading zeros (``month=07``), sets written for lists (``{1, 2}``), Python keywords
written as parameter names (``from=1``: read with that name), and one string whose same-style
quotes inside were left unescaped (``command='sed -n '1,5p' f.py'``), when exactly one way to
close that string makes a call. Anything else stays unconverted.

A repair runs once, on a call's whole text, after the strict reading failed: a call that
converts as written is never touched, and each repair costs a bounded number of passes over
the call (at most ``MAX_CLOSINGS`` readings of it for the quotes).
"""

from __future__ import annotations

import ast
import io
import itertools
import json
import keyword
import re
import tokenize
import warnings
from collections.abc import Callable
from typing import Any

Converter = Callable[[str], "tuple[str, str] | None"]

_JSON_LITERALS: dict[str, bool | None] = {"null": None, "true": True, "false": False}


class _JsonLiterals(ast.NodeTransformer):
    """``null``, ``true`` and ``false`` written as names: the constants JSON means by them."""

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in _JSON_LITERALS:
            return ast.copy_location(ast.Constant(_JSON_LITERALS[node.id]), node)
        return node


class _SetsAsLists(_JsonLiterals):
    """JSON's literals, and a set as the list of its elements in the order written."""

    def visit_Set(self, node: ast.Set) -> ast.expr:
        self.generic_visit(node)
        return ast.copy_location(ast.List(node.elts, ast.Load()), node)


def call_arguments(
    source: str, json_literals: bool = False, sets: bool = False
) -> tuple[str, str] | None:
    """``(name, JSON arguments)`` of a call written as Python, or ``None`` when it is not a
    call with literal keyword arguments only, or its values have no JSON form.
    ``json_literals``: ``null``, ``true`` and ``false`` are values too; ``sets``: so are sets,
    as lists (with JSON's literals)."""
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    call = tree.body
    if not isinstance(call, ast.Call) or call.args:
        return None
    if json_literals or sets:
        literals = _SetsAsLists() if sets else _JsonLiterals()
        for keyword in call.keywords:
            keyword.value = literals.visit(keyword.value)
    name = _dotted(call.func)
    if name is None:
        return None
    arguments: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is None:  # **kwargs
            return None
        try:
            arguments[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    try:
        return name, json.dumps(arguments, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):  # bytes, sets, complex, inf
        return None


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


#: The most closing quotes a broken string may have to choose from: more, and it stays text
#: (each is one reading of the call; a string with that many is no slip of one quote).
MAX_CLOSINGS = 8

_QUOTE = re.compile(r"['\"]")
# In a string: its quote's character, or an escape.
_STRING_STOP = {"'": re.compile(r"['\\]"), '"': re.compile(r'["\\]')}
# In a string's body: an escape (kept as written), or a raw control character.
_CONTROL = re.compile(r"\\.|[\n\r\t\x00]", re.DOTALL)
# In a triple-quoted string's body: line breaks and tabs are its own, NUL is not.
_NUL = re.compile(r"\\.|\x00", re.DOTALL)
_CONTROL_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x00": "\\x00"}
# Outside strings: a run of digits that is a whole number (not part of a name, a float, an
# exponent, a hex/octal/binary literal or an imaginary number).
_INTEGER = re.compile(r"(?<![\w.])[0-9][0-9_]*(?![\w.])")
# What may follow the quote that ends a string argument (spaces aside).
_CAN_FOLLOW_STRING = re.compile(r"\s*[,)\]}:]")
# A string's end, then the next keyword argument: no closing past it is read as the model's.
_NEXT_ARGUMENT = {q: re.compile(q + r"\s*,\s*[A-Za-z_]\w*\s*=(?!=)") for q in "'\""}
# In a broken string: an escape (kept), or a quote of its kind.
_UNESCAPED = {q: re.compile(r"\\.|" + q, re.DOTALL) for q in "'\""}


# A Python keyword before "=" (not "=="): maybe a parameter's name, maybe in a string.
_KEYWORD_NAME = re.compile(r"(?<![\w.])(?:" + "|".join(keyword.kwlist) + r")\s*=(?!=)")
# Tokens that say nothing of where an argument's name stands.
_LAYOUT = frozenset(
    (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
)


def _keyword_names(text: str) -> tuple[str, dict[str, str]] | None:
    """``text`` with each Python keyword that names a keyword argument of the call (right
    after the call's ``(`` or a ``,`` directly inside it, and before ``=``) renamed to a name
    that occurs nowhere in ``text``, and the keyword of each new name; ``None`` when there is
    none, or when ``text`` does not tokenize cleanly (then where its strings are is unsure)."""
    lines = io.StringIO(text).readlines()  # split at "\n" only, as the tokenizer reads it
    starts = list(itertools.accumulate(map(len, lines), initial=0))
    found: list[tuple[int, str]] = []  # (where, keyword)
    depth = 0
    previous = ""  # the last token's text, if an operator
    name: tuple[int, str] | None = None  # a keyword at a name's place: if "=" follows
    try:
        for token in tokenize.generate_tokens(iter(lines).__next__):
            kind, string = token.type, token.string
            if kind in _LAYOUT:
                continue
            if kind == tokenize.ERRORTOKEN:
                return None
            if name is not None and kind == tokenize.OP and string == "=":
                found.append(name)
            name = None
            if kind == tokenize.NAME:
                if depth == 1 and previous in ("(", ",") and keyword.iskeyword(string):
                    row, column = token.start
                    name = (starts[row - 1] + column, string)
            elif string in ("(", "[", "{"):
                depth += 1
            elif string in (")", "]", "}"):
                depth -= 1
            previous = string if kind == tokenize.OP else ""
    except (tokenize.TokenError, SyntaxError):
        return None
    if not found:
        return None
    names: dict[str, str] = {}  # keyword → its new name
    for _, word in found:
        if word not in names:
            new = f"_{word}_"
            while new in text:
                new += "_"
            names[word] = new
    pieces: list[str] = []
    end = 0
    for at, word in found:
        pieces += (text[end:at], names[word])
        end = at + len(word)
    pieces.append(text[end:])
    return "".join(pieces), {new: word for word, new in names.items()}


def _keyword_arguments(text: str, convert: Converter) -> tuple[str, str] | None:
    """``convert`` of ``text``, a Python keyword that names an argument read as that name."""
    renamed = _keyword_names(text) if _KEYWORD_NAME.search(text) else None
    if renamed is None:
        return convert(text)
    converted = convert(renamed[0])
    if converted is None:
        return None
    name, arguments = converted
    words = renamed[1]
    named = {words.get(key, key): value for key, value in json.loads(arguments).items()}
    return name, json.dumps(named, ensure_ascii=False)


def _string_end(text: str, at: int, quote: str) -> int:
    """Where the string whose body starts at ``at`` ends (past its closing ``quote``), or
    ``-1`` when it does not."""
    stop = _STRING_STOP[quote[0]]
    while True:
        match = stop.search(text, at)
        if match is None:
            return -1
        at = match.start()
        if match.group() == "\\":
            at += 2
        elif text.startswith(quote, at):
            return at + len(quote)
        else:
            at += 1


def _fixed(text: str) -> str:
    """``text`` with its integers' leading zeros dropped (``07`` → ``7``, outside strings) and
    the raw control characters its strings may not hold written as escapes (the same values).
    The identity on text Python reads."""
    out: list[str] = []
    i = 0
    while True:
        match = _QUOTE.search(text, i)
        if match is None:
            out.append(_INTEGER.sub(_integer, text[i:]))
            return "".join(out)
        start = match.start()
        char = match.group()
        quote = char * 3 if text.startswith(char * 3, start) else char
        out.append(_INTEGER.sub(_integer, text[i:start]))
        end = _string_end(text, start + len(quote), quote)
        if end < 0:  # not closed: no call
            out.append(text[start:])
            return "".join(out)
        body = text[start:end]
        out.append((_CONTROL if len(quote) == 1 else _NUL).sub(_control, body))
        i = end


def _integer(match: re.Match[str]) -> str:
    digits = match.group()
    value = digits.replace("_", "").lstrip("0")
    return value if digits[0] == "0" and value else digits


def _control(match: re.Match[str]) -> str:
    return _CONTROL_ESCAPES.get(match.group(), match.group())


def _requoted(text: str, convert: Converter) -> tuple[str, str] | None:
    """The call ``text`` makes with its first broken string closed at the one quote where
    closing it makes a call, or ``None``. A string is broken when what follows its closing
    quote cannot follow a string argument; every later quote of its kind that could close it
    is tried, with the quotes of its kind before that escaped, up to the start of another
    argument (``', name=``): a closing past that would make one string of two."""
    i = 0
    while True:
        match = _QUOTE.search(text, i)
        if match is None:
            return None
        start = match.start()
        char = match.group()
        if text.startswith(char * 3, start):  # a triple-quoted string: not this repair's
            i = _string_end(text, start + 3, char * 3)
            if i < 0:
                return None
            continue
        end = _string_end(text, start + 1, char)
        if end < 0:
            return None
        if _CAN_FOLLOW_STRING.match(text, end):
            i = end
            continue
        break
    # A closing past the start of another argument (``', name=``) would make one string of two.
    argument = _NEXT_ARGUMENT[char].search(text, end)
    limit = len(text) if argument is None else argument.start()
    closings = []
    for quote in _UNESCAPED[char].finditer(text, end - 1, limit + 1):
        at = quote.start()
        if quote.group() == char and _CAN_FOLLOW_STRING.match(text, at + 1):
            closings.append(at)
            if len(closings) > MAX_CLOSINGS:
                return None
    found = None
    for at in closings:
        body = _UNESCAPED[char].sub(_escaped_quote, text[start + 1 : at])
        converted = convert(f"{text[: start + 1]}{body}{text[at:]}")
        if converted is not None:
            if found is not None:
                return None  # two readings: not this repair's to choose
            found = converted
    return found


def _escaped_quote(match: re.Match[str]) -> str:
    found = match.group()
    return found if len(found) > 1 else "\\" + found


def repaired_arguments(source: str) -> tuple[str, str] | None:
    """``call_arguments`` (JSON's literals and sets too) of ``source`` repaired, or ``None``
    when no repair makes it a call: its integers and control characters fixed and keywords
    read as parameter names, else one broken string closed where exactly one closing makes
    a call."""

    def literals(text: str) -> tuple[str, str] | None:
        return call_arguments(text, json_literals=True, sets=True)

    def convert(text: str) -> tuple[str, str] | None:
        return _keyword_arguments(_fixed(text), literals)

    with warnings.catch_warnings():  # ("\," and other unknown escapes: kept as written)
        warnings.simplefilter("ignore")
        converted = convert(source)
        if converted is not None:
            return converted
        return _requoted(source, convert)
