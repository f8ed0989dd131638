"""``lenient_json``: what ``json.loads`` accepts is read; what is read is written back."""

from __future__ import annotations

import json
import math
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolcall_middleware import lenient_json

# Strings with lone surrogates, floats with NaN and the infinities, integers past 64 bits.
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats()
    | st.text(st.characters() | st.sampled_from("\ud83d\udc40"), max_size=8)
)
VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


def same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_reads_what_python_writes_as_json_loads_does(value: Any) -> None:
    text = json.dumps(value)  # ASCII: lone surrogates as \u escapes, NaN as NaN
    expected = json.loads(text)
    decoded = lenient_json.loads(text.encode())
    # orjson reads integers past 64 bits as floats: the one place the two differ.
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        assert same(decoded, expected)
    else:
        assert same(decoded, orjson.loads(text))


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_writes_utf8_json_that_reads_back_as_the_value(value: Any) -> None:
    written = lenient_json.dumps(value)
    written.decode("utf-8")  # always valid UTF-8, whatever the strings hold
    back = json.loads(written)
    if isinstance(value, float) and not math.isfinite(value):
        assert back is None  # orjson's null for what JSON cannot say
    elif not _has_nonfinite(value):
        assert same(back, value)


def _has_nonfinite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, list):
        return any(_has_nonfinite(v) for v in value)
    if isinstance(value, dict):
        return any(_has_nonfinite(v) for v in value.values())
    return False


def test_orjson_output_is_kept_for_what_orjson_can_write() -> None:
    value = {"a": [1, 2.5, "é", None, True]}
    assert lenient_json.dumps(value) == orjson.dumps(value)


def test_a_lone_surrogate_is_written_as_its_escape() -> None:
    assert lenient_json.dumps({"t": "x\ud83d"}) == b'{"t":"x\\ud83d"}'


@pytest.mark.parametrize(
    "data",
    [b"", b"{", b"[1,]", b"\xff\xfe{}", b"[" * 5000 + b"]" * 5000, "nope"],
    ids=["empty", "cut", "comma", "not utf-8", "deep", "text"],
)
def test_what_no_client_reads_raises_value_error(data: bytes | str) -> None:
    with pytest.raises(ValueError):
        lenient_json.loads(data)


def _replaced(value: Any) -> Any:
    """``value`` with every surrogate code point in its strings as U+FFFD."""
    if isinstance(value, str):
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    if isinstance(value, list):
        return [_replaced(v) for v in value]
    if isinstance(value, dict):
        return {_replaced(k): _replaced(v) for k, v in value.items()}
    return value


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_well_formed_reading_replaces_each_lone_surrogate_and_nothing_else(value: Any) -> None:
    text = json.dumps(value)
    read = lenient_json.loads_well_formed(text.encode())
    # json.loads joins a high and a low escape side by side into one character; what is left
    # alone is a lone surrogate, and becomes U+FFFD.
    assert same(read, _replaced(lenient_json.loads(text)))
    if not _has_nonfinite(value):
        try:
            orjson.dumps(read)
        except orjson.JSONEncodeError as exc:  # only an integer past 64 bits
            assert "Integer exceeds 64-bit range" in str(exc)


def test_well_formed_reading_keeps_pairs_and_nul() -> None:
    data = rb'{"\udc00k":["\ud83d","\ud83d\ude00","a\udc00\ud83d","\u0000",NaN]}'
    read = lenient_json.loads_well_formed(data)
    assert list(read) == ["\ufffdk"]
    assert read["\ufffdk"][:4] == ["\ufffd", "\U0001f600", "a\ufffd\ufffd", "\x00"]
    assert math.isnan(read["\ufffdk"][4])


def test_well_formed_reading_raises_value_error_on_what_no_client_reads() -> None:
    for data in (b"{", b"\xff", b"[" * 5000 + b'"\\ud83d"' + b"]" * 5000):
        with pytest.raises(ValueError):
            lenient_json.loads_well_formed(data)


def test_well_formed_reading_can_refuse_nan_as_json_does() -> None:
    assert lenient_json.loads_well_formed(b'["\\ud83d"]', nan=False) == ["\ufffd"]
    for data in (b'["\\ud83d", NaN]', b"[Infinity]", b"-Infinity"):
        with pytest.raises(ValueError):
            lenient_json.loads_well_formed(data, nan=False)
        assert lenient_json.loads_well_formed(data) is not None


def _in_a_string(data: bytes) -> bytes:
    """``data`` as the value of a compact JSON document's one string (quotes and backslashes
    escaped, as every encoder escapes them)."""
    return b'{"a":"' + data.replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"}'


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40).map(lambda b: bytes(c for c in b if c >= 0x20)))
def test_bytes_that_are_not_utf8_are_read_and_written_back_as_they_came(data: bytes) -> None:
    document = _in_a_string(data)
    value = lenient_json.loads_keeping_bytes(document)
    assert value == {"a": data.decode("utf-8", "surrogateescape")}
    assert lenient_json.dumps_keeping_bytes(value) == document


def test_keeping_bytes_writes_other_lone_surrogates_as_escapes() -> None:
    value = lenient_json.loads_keeping_bytes(b'{"a":"\xe9\\ud83d"}')
    assert lenient_json.dumps_keeping_bytes(value) == b'{"a":"\xe9\\ud83d"}'


def test_keeping_bytes_refuses_an_escape_that_would_read_as_a_byte() -> None:
    with pytest.raises(ValueError, match="lone surrogate escape"):
        lenient_json.loads_keeping_bytes(b'{"a":"\xe9\\udce9"}')
    with pytest.raises(ValueError):
        lenient_json.loads_keeping_bytes(b'{"a":"\xe9')  # not JSON
