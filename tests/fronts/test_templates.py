"""Each front's event templates are the bytes its builders encode to, for any number and text.

The fast path writes the usual delta event from an ``EventTemplate`` declared beside the
builder of that event (``responses/items.py``, ``anthropic/stream.py``). Here each is proved
equal to ``named_events`` of its builder on hostile values: quotes and backslashes, U+2028 and
U+2029, NUL and other control characters, non-ASCII and astral characters, any id and index.
Gemini writes each text chunk as fixed bytes around its one part (``gemini/wire.py``'s
``Chunks``, which its fast path and its ``GeminiStream`` write with): proved equal here to the
response document its final chunk is built from (``gemini/response.py``), encoded on one line.
"""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from toolcall_middleware.fronts.anthropic.stream import StreamTranslator, _delta, delta_template
from toolcall_middleware.fronts.core.reader import CONTENT, REASONING
from toolcall_middleware.fronts.core.wire import named_events
from toolcall_middleware.fronts.gemini.request import GeminiRequest
from toolcall_middleware.fronts.gemini.response import response
from toolcall_middleware.fronts.gemini.stream import GeminiStream, one_line
from toolcall_middleware.fronts.responses import items

HOSTILE = st.text(
    alphabet=st.one_of(
        st.sampled_from('"\\\u2028\u2029\x00\x1f\x7fé€\U0001f600<>&'),
        # (A lone surrogate is no text a JSON decoder gives, and orjson writes none.)
        st.characters(exclude_categories=("Cs",)),
    ),
    max_size=40,
)
NUMBERS = st.integers(0, 1 << 62)
DELTA_TYPES = sorted({t for how in ("summary", "text") for t in items.delta_types(how).values()})


@settings(max_examples=150, deadline=None)
@given(
    delta_type=st.sampled_from(DELTA_TYPES),
    item_id=HOSTILE,
    index=NUMBERS,
    seq=NUMBERS,
    text=HOSTILE,
)
def test_a_responses_text_delta_is_its_template(
    delta_type: str, item_id: str, index: int, seq: int, text: str
) -> None:
    template = items.text_delta_template(delta_type, item_id, index)
    built = named_events([items.text_delta(delta_type, item_id, index, seq, text)])
    assert template.render(seq, text) == built


@settings(max_examples=150, deadline=None)
@given(item_id=HOSTILE, index=NUMBERS, seq=NUMBERS, fragment=HOSTILE)
def test_a_responses_arguments_delta_is_its_template(
    item_id: str, index: int, seq: int, fragment: str
) -> None:
    template = items.arguments_delta_template(item_id, index)
    built = named_events([items.arguments_delta(item_id, index, seq, fragment)])
    assert template.render(seq, fragment) == built


@settings(max_examples=150, deadline=None)
@given(block=st.sampled_from(["thinking", "text", "tool_use"]), index=NUMBERS, text=HOSTILE)
def test_an_anthropic_block_delta_is_its_template(block: str, index: int, text: str) -> None:
    translator = StreamTranslator.__new__(StreamTranslator)  # the builder reads one attribute
    translator._next_index = index + 1  # block ``index`` is the one open
    built = named_events([translator._block_delta(_delta(block, text))])
    assert delta_template(index, block).render_text(text) == built


@settings(max_examples=150, deadline=None)
@given(
    model=HOSTILE, text=HOSTILE, thought=st.booleans(), framing=st.sampled_from(["sse", "array"])
)
def test_a_gemini_text_chunk_is_its_response_document(
    model: str, text: str, thought: bool, framing: str
) -> None:
    request = GeminiRequest({}, model, stream=True, include_thoughts=True, input_tokens=0)
    stream = GeminiStream(request, "sse" if framing == "sse" else "array")
    part: dict[str, object] = {"text": text, "thought": True} if thought else {"text": text}
    translator = stream.translator
    doc = one_line(orjson.dumps(response([part], model, translator.response_id)))
    written = translator.fast_delta(REASONING if thought else CONTENT, text)
    assert written is not None
    assert written == (b"data: " + doc + b"\n\n" if framing == "sse" else doc)
    # Not one line break a client splits lines at: the event is one ``data:`` line.
    assert written.count(b"\n") == (2 if framing == "sse" else 0)
    assert b"\r" not in written and "\u2028".encode() not in written
