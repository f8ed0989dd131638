"""Hostile upstream streams for the fast-path tests: non-canonical JSON, other escapes,
changing ids, usage, finishes, errors, whitespace and line breaks inside values, call indexes
JSON does not write, raw U+2028, lone surrogate escapes (which orjson refuses), bytes that are
not UTF-8 (Latin-1, a character cut after its first byte), strings past
``LARGE_STRING``, Kimi K2 tool calls written as markup (for the chat path to rewrite), reads
cut anywhere, ``\\r\\n`` line endings."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import orjson
from hypothesis import strategies as st

from toolcall_middleware import lenient_json
from toolcall_middleware.fronts.core.wire import LARGE_STRING
from toolcall_middleware.handoff import ArgsPiece, DeltaPiece, Handed, TextPiece

#: Past the size where a front encodes with the standard library (which escapes non-ASCII).
HUGE = "é\u2028" * (LARGE_STRING // 2 + 5)
#: One Kimi K2 call as a model writes it in its reasoning, piece by piece.
KIMI_CALL = [
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "functions.shell:0",
    "<|tool_call_argument_begin|>",
    '{"cmd"',
    ': "ls',
    ' -la"',
    "}",
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
]

TEXTS = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "hi",
            '"',
            "\\",
            "\n",
            "\r",
            "\u2028",
            "é",
            "\x00",
            "\x7f",
            '{"cmd": "ls"}',
            "{",
            "}",
            "END",
            "0123456789" * 3,
            HUGE,
            "\ud83d",
            "x\udc00",
            "\ud83d\ude00",
            "<",
            "a <|",
            "<|tool_call",
        ]
    ),  # what a parser holds, maybe markup
    st.text(max_size=6),
)


#: The tools a call may name: a function, a custom tool, a namespaced function (as a
#: Responses front flattens it), none of the client's.
CALL_NAMES = ["shell", "shell", "apply_patch", "mcp__run", 'other"\\é\u2028']

KINDS = (
    ["content", "both", "args"] * 6
    + ["reasoning", "start", "kimi", "call"] * 3
    + [
        "reasoning_content",
        "both-rc",
        "both-differ",
        "refusal",
        "role",
        "args-bare",
        "args-id",
        "args-object",
        "finish",
        "text-finish",
        "usage",
        "text-usage",
        "error",
        "empty",
    ]
)
METAS: list[dict[str, Any]] = [
    {},
    {"id": "chatcmpl-2"},
    {"usage": None},
    {"system_fingerprint": "fp"},
]


@st.composite
def chunks(
    draw: st.DrawFn, meta: dict[str, Any], kind: str, index: int, text: str | None = None
) -> dict[str, Any]:
    text = draw(TEXTS) if text is None else text
    delta: dict[str, Any] = {
        "content": {"content": text},
        "reasoning": {"reasoning": text},
        "reasoning_content": {"reasoning_content": text},
        "both": {"reasoning": text, "reasoning_content": text},
        "both-rc": {"reasoning_content": text, "reasoning": text},
        "both-differ": {"reasoning": text, "reasoning_content": text + "."},
        "refusal": {"refusal": text},
        "role": {"role": "assistant", "content": text},
        "start": {
            "tool_calls": [
                {
                    "index": index,
                    "id": draw(
                        st.sampled_from([f"call_{index}"] * 3 + [f'call_"\\é\u2028{index}'])
                    ),
                    "type": "function",
                    "function": {
                        "name": draw(st.sampled_from(CALL_NAMES)),
                        "arguments": "",
                    },
                }
            ]
        },
        "args": {"tool_calls": [{"index": index, "function": {"arguments": text}}]},
        "args-bare": {"tool_calls": [{"function": {"arguments": text}}]},
        "args-id": {
            "tool_calls": [{"index": index, "id": "call_x", "function": {"arguments": text}}]
        },
        "args-object": {"tool_calls": [{"index": index, "function": {"arguments": {"a": 1}}}]},
        "text-finish": {"content": text},
        "text-usage": {"reasoning": text, "reasoning_content": text},
    }.get(kind, {})
    doc: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        **meta,
    }
    if draw(st.integers(0, 5)) == 0:  # now and then, not the stream's usual metadata
        doc.update(draw(st.sampled_from(METAS)))
    usage = {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
    if kind == "usage":
        doc.update(choices=[], usage=usage)
    elif kind == "error":
        doc = {"error": {"message": "boom", "type": "server_error"}}
    else:
        finish = (
            draw(st.sampled_from(["stop", "tool_calls", "length"]))
            if kind in ("finish", "text-finish")
            else None
        )
        doc["choices"] = [
            {
                "index": draw(st.sampled_from([0, 0, 0, 0, 1])),
                "delta": delta,
                "logprobs": None,
                "finish_reason": finish,
            }
        ]
        if kind == "text-usage":
            doc["usage"] = usage
    return doc


@st.composite
def events(
    draw: st.DrawFn, meta: dict[str, Any], kind: str, index: int, text: str | None = None
) -> bytes:
    """One SSE event: a chunk in some JSON form, or something that is not one."""
    form = draw(
        st.sampled_from(
            ["compact"] * 12
            + ["spaced", "ascii", "escaped", "break", "index", "other", "latin1", "cut"]
        )
    )
    if form == "other":
        return draw(
            st.sampled_from(
                [
                    b"data: {not json\n\n",
                    b": keep-alive\n\n",
                    b"data: [1]\n\n",
                    b"event: x\ndata: {}\n\n",
                ]
            )
        )
    doc = draw(chunks(meta, kind, index, text))
    data = lenient_json.dumps(doc)  # a lone surrogate as its escape
    if form == "spaced":
        data = json.dumps(doc, ensure_ascii=False).encode("utf-8", "backslashreplace")
    elif form == "ascii":  # \uXXXX escapes for every non-ASCII character
        data = json.dumps(doc, separators=(",", ":")).encode()
    elif form == "escaped":  # escapes orjson never writes, in compact JSON
        data = data.replace(b"hi", b"h\\u0069").replace(b"/", b"\\/")
    elif form == "break":  # whitespace, a line break even, where JSON allows it in a delta
        at = data.find(b":", data.find(b'"delta":{') + 9) + 1
        space = draw(st.sampled_from([b"\n", b"\r", b" ", b"\t"]))
        data = data[:at] + space + data[at:] if at > 9 else data
    elif form == "latin1":  # "é" as Latin-1 writes it: a byte that is not UTF-8
        data = data.replace("é".encode(), b"\xe9")
    elif form == "cut":  # "é" cut after its first byte, which a channel then holds
        data = data.replace("é".encode(), b"\xc3")
    elif form == "index":  # a call's index as JSON does not allow it, or does not write it
        wrong = draw(st.sampled_from([b"0%d", b"%d.0", b"%de0", b" %d", b"-%d", b"%d "]))
        data = re.sub(
            rb'"index":(\d+),"function"',
            lambda m: b'"index":' + wrong % int(m[1]) + b',"function"',
            data,
        )
    return b"data: " + data + b"\n\n"


@st.composite
def event_lists(draw: st.DrawFn) -> list[bytes]:
    """A stream's events, one SSE event each: runs of one kind of chunk, as models write."""
    meta = draw(st.sampled_from(METAS))
    body: list[bytes] = []
    for _ in range(draw(st.integers(0, 8))):
        kind, index = draw(st.sampled_from(KINDS)), draw(st.sampled_from([0, 0, 0, 1, 2]))
        if kind == "kimi":  # a call in markup, each piece its own reasoning delta
            body += [draw(events(meta, "both", 0, piece)) for piece in KIMI_CALL]
            continue
        if kind == "call":  # a native call: its start, then pieces of its arguments
            body.append(draw(events(meta, "start", index)))
            kind = "args"
        body += [draw(events(meta, kind, index)) for _ in range(draw(st.integers(1, 12)))]
    return body


@st.composite
def upstream_bodies(draw: st.DrawFn) -> list[bytes]:
    """A stream's body as the front reads it: one event per read (as servers send), or the
    same bytes cut anywhere, in ``\\n`` or ``\\r\\n`` line endings."""
    body = draw(event_lists())
    if draw(st.booleans()):
        body.append(b"data: [DONE]\n\n")
    if draw(st.integers(0, 9)) == 0:
        body = [b.replace(b"\n", b"\r\n") for b in body]
    if draw(st.integers(0, 3)):
        return body
    whole = b"".join(body)
    cuts = sorted(set(draw(st.lists(st.integers(0, len(whole)), max_size=10))))
    return [whole[a:b] for a, b in itertools.pairwise([0, *cuts, len(whole)])]


#: How ``ChunkTemplate.text`` names the text fields of a delta that holds one text.
TEXT_FIELDS = {
    ("content",),
    ("reasoning",),
    ("reasoning_content",),
    ("reasoning", "reasoning_content"),
    ("reasoning_content", "reasoning"),
}


def handed_of(body: bytes) -> Handed | None:
    """What a chat path may hand of this event under the handoff rule, if anything."""
    if (
        not body.startswith(b"data: {")
        or body.count(b"\n") != 2
        or b"\r" in body
        or not body.endswith(b"\n\n")
    ):
        return None
    try:
        chunk = orjson.loads(body[6:-2])
    except orjson.JSONDecodeError:
        return None
    try:
        (choice,) = chunk["choices"]  # one choice, of a chunk without usage, not finished
        if "usage" in chunk or choice.get("finish_reason") is not None:
            return None
    except (TypeError, KeyError, ValueError, AttributeError):
        return None
    index, delta = choice.get("index", 0), choice.get("delta")
    if type(index) is not int or type(delta) is not dict:
        return None
    fields, values = tuple(delta), list(delta.values())
    if fields in TEXT_FIELDS and type(values[0]) is str and values.count(values[0]) == len(values):
        return TextPiece(index, fields, values[0])
    return DeltaPiece(index, delta)


def handed_as_the_chat_path_hands(body: bytes) -> Handed | None:
    """``handed_of``, with one piece of a call's arguments handed as the chat path hands it:
    an ``ArgsPiece``."""
    handed = handed_of(body)
    if not isinstance(handed, DeltaPiece):
        return handed
    index, delta = handed.index, handed.delta
    entries = delta.get("tool_calls")
    if len(delta) != 1 or type(entries) is not list or len(entries) != 1:
        return handed
    (entry,) = entries
    if type(entry) is not dict or sorted(entry) != ["function", "index"]:
        return handed
    call, function = entry["index"], entry["function"]
    if type(call) is not int or type(function) is not dict or list(function) != ["arguments"]:
        return handed
    fragment = function["arguments"]
    return ArgsPiece(index, call, fragment) if type(fragment) is str else handed
