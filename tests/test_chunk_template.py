"""Chunk templates: what a stream's usual chunk looks like around its delta, read by slicing.

That a stream read through its template gives the same bytes: ``test_fast_path.py``.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from toolcall_middleware.chunk_template import ChunkTemplate, one_text_choice


def chunk(
    delta: dict[str, Any], finish: str | None = None, index: int = 0, **meta: Any
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-t",
        "object": "chat.completion.chunk",
        "created": 7,
        "model": "k2",
        **meta,
        "choices": [{"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def event(data: bytes) -> bytes:
    return b"data: " + data + b"\n\n"


def learn(obj: dict[str, Any], data: bytes | None = None) -> ChunkTemplate | None:
    data = orjson.dumps(obj) if data is None else data
    found = one_text_choice(obj)
    return None if found is None else ChunkTemplate.learn(data, obj, *found)


def test_a_canonical_chunk_gives_the_bytes_around_its_delta_members() -> None:
    obj = chunk({"content": "hi"})
    template = learn(obj)
    assert template is not None
    assert template.head.endswith(b'"delta":{') and template.tail.startswith(b"}")
    assert template.head + b'"content":"hi"' + template.tail == event(orjson.dumps(obj))
    assert template.meta == {
        "id": "chatcmpl-t",
        "object": "chat.completion.chunk",
        "created": 7,
        "model": "k2",
    }


@pytest.mark.parametrize(
    "obj, data",
    [
        # Not orjson's compact form: re-encoding would change it, so slicing would not match.
        (chunk({"content": "hi"}), json.dumps(chunk({"content": "hi"})).encode()),
        (
            chunk({"content": "é"}),
            json.dumps(chunk({"content": "é"}), separators=(",", ":")).encode(),
        ),
        # The same delta members elsewhere too: which one is the choice's is not known.
        (chunk({"content": "hi"}, x={"delta": {"content": "hi"}}), None),
    ],
)
def test_no_template_unless_the_delta_is_found_once_in_compact_form(
    obj: dict[str, Any], data: bytes | None
) -> None:
    assert learn(obj, data) is None


@pytest.mark.parametrize(
    "obj",
    [
        chunk({"content": "x"}, "stop"),
        chunk({"content": "x"}, usage=None),
        chunk({"role": "assistant", "content": 1}),
        chunk({}),
        {**chunk({"content": "x"}), "choices": [chunk({"content": "x"})["choices"][0]] * 2},
    ],
)
def test_only_one_choice_of_text_without_finish_or_usage_can_be_a_template(
    obj: dict[str, Any],
) -> None:
    assert one_text_choice(obj) is None


@pytest.mark.parametrize(
    "members, expected",
    [
        (b'"content":"a b"', (("content",), b'"a b"')),
        (b'"reasoning":"x"', (("reasoning",), b'"x"')),
        (b'"reasoning_content":"x"', (("reasoning_content",), b'"x"')),
        (
            b'"reasoning":"x\\"y","reasoning_content":"x\\"y"',
            (("reasoning", "reasoning_content"), b'"x\\"y"'),
        ),
        (b'"reasoning_content":"x","reasoning":"x"', (("reasoning_content", "reasoning"), b'"x"')),
        (b'"reasoning":"x","reasoning_content":"y"', None),  # two texts: the general path
        (b'"role":"assistant","content":""', None),
        (b'"tool_calls":[]', None),
    ],
)
def test_the_text_members_a_template_reads(
    members: bytes, expected: tuple[tuple[str, ...], bytes] | None
) -> None:
    template = learn(chunk({"content": "hi"}))
    assert template is not None
    found = template.read(template.head + members + template.tail)
    assert (None if found is None else (found[0], orjson.dumps(found[1]))) == expected


@pytest.mark.parametrize(
    "members, expected",
    [
        (b'"content":"a\\"b\\u00e9"', (("content",), 'a"b\u00e9')),
        (b'"reasoning":"x","reasoning_content":"x"', (("reasoning", "reasoning_content"), "x")),
        (b'"content": "x"', None),  # whitespace around the text: it could hold a line break
        (b'"content":"x" ', None),
        (b'"content":1', None),
        (b'"content":null', None),
        (b'"content":"x', None),
        (b'"content":', None),
        (b'"role":"assistant"', None),
    ],
)
def test_read_gives_the_text_of_the_usual_event(
    members: bytes, expected: tuple[tuple[str, ...], str] | None
) -> None:
    template = learn(chunk({"content": "hi"}))
    assert template is not None
    assert template.read(template.head + members + template.tail) == expected


def test_read_declines_another_head_or_tail() -> None:
    template = learn(chunk({"content": "hi"}))
    assert template is not None
    body = template.head + b'"content":"x"' + template.tail
    assert template.read(body.replace(b"chatcmpl-t", b"chatcmpl-u")) is None
    assert template.read(body[:-1]) is None
    assert template.read(body + body) is None
