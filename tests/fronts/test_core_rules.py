"""The core's small rules, one home each: one leading system message, model mapping, option
precedence, upstream failure kinds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from toolcall_middleware.config import ConfigError
from toolcall_middleware.fronts.core import options
from toolcall_middleware.fronts.core.failures import from_response, from_stream_error
from toolcall_middleware.fronts.core.models import map_model
from toolcall_middleware.fronts.core.system import one_leading_system


def test_all_system_and_developer_text_joins_one_leading_message() -> None:
    messages = [
        {"role": "system", "content": "A"},
        {"role": "developer", "content": [{"type": "text", "text": "B"}]},
        {"role": "user", "content": "hi"},
        {"role": "system", "content": ""},
        {"role": "developer", "content": "C"},
        {"role": "assistant", "content": "ok"},
    ]
    assert one_leading_system(messages) == [
        {"role": "system", "content": "A\n\nB\n\nC"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "ok"},
    ]
    assert one_leading_system(messages, "user") == [
        {"role": "system", "content": "A\n\nB"},
        {"role": "user", "content": "hi"},
        {"role": "user", "content": "[developer]\nC"},
        {"role": "assistant", "content": "ok"},
    ]


def test_no_system_text_gives_no_system_message() -> None:
    messages = [{"role": "user", "content": "hi"}]
    assert one_leading_system(messages) == messages


def test_model_map_exact_then_patterns_then_default() -> None:
    model_map = {"gemini-*": "pattern", "gemini-2.5-pro": "exact"}
    assert map_model("gemini-2.5-pro", model_map) == "exact"
    assert map_model("gemini-3-flash", model_map) == "pattern"
    assert map_model("other", model_map) == "other"
    assert map_model("other", model_map, "fallback") == "fallback"


@dataclass(frozen=True)
class Demo:
    model_map: dict[str, str] = field(default_factory=dict)
    flag: bool = False
    size: int = 1


PARSERS: dict[str, Any] = {
    "model_map": options.model_map_parser("demo"),
    "flag": options.parse_bool,
    "size": int,
}


def test_option_precedence_keyword_environment_file_default() -> None:
    env = {"TOOLCALL_DEMO_SIZE": "3", "TOOLCALL_DEMO_MODEL_MAP": "a=b"}
    file = {"size": 2, "flag": True}
    built = options.build_options(Demo, "demo", PARSERS, env, file, {"size": 4, "flag": None})
    assert built == Demo({"a": "b"}, True, 4)
    assert options.build_options(Demo, "demo", PARSERS, env, file, {}).size == 3
    assert options.build_options(Demo, "demo", PARSERS, {}, file, {}).size == 2
    assert options.build_options(Demo, "demo", PARSERS, {}, None, {}) == Demo()


def test_option_errors_name_the_variable_or_table() -> None:
    with pytest.raises(ConfigError, match="TOOLCALL_DEMO_FLAG"):
        options.build_options(Demo, "demo", PARSERS, {"TOOLCALL_DEMO_FLAG": "maybe"}, None, {})
    with pytest.raises(ConfigError, match=r"unknown \[demo\] option\(s\): sise"):
        options.build_options(Demo, "demo", PARSERS, {}, {"sise": 1}, {})
    with pytest.raises(TypeError, match="unknown demo option"):
        options.build_options(Demo, "demo", PARSERS, {}, None, {"sise": 1})


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (400, b'{"error": {"message": "bad"}}', "invalid_request"),
        (
            400,
            b'{"object": "error", "message": "This model\'s maximum context length is 8192"}',
            "context_length",
        ),
        (401, b"no", "authentication"),
        (408, b"", "timeout"),
        (418, b"", "invalid_request"),
        (429, b"", "rate_limit"),
        (502, b"", "server"),
        (503, b"", "overloaded"),
    ],
)
def test_upstream_statuses_as_kinds(status: int, body: bytes, kind: str) -> None:
    failure = from_response(status, body)
    assert (failure.kind, failure.status) == (kind, status)
    assert failure.message.startswith(f"upstream returned HTTP {status}: ")


def test_stream_error_kinds() -> None:
    assert from_stream_error({"error": {"message": "m", "type": "overloaded"}}).kind == "overloaded"
    assert from_stream_error({"error": {"message": "m", "code": 504}}).kind == "timeout"
    assert from_stream_error({"error": "boom"}).message == "boom"
    doc = {"error": {"message": "prompt too long", "code": "context_length_exceeded"}}
    assert from_stream_error(doc).kind == "context_length"


def test_large_documents_encode_to_the_same_json() -> None:
    import orjson

    from toolcall_middleware.fronts.core.wire import dumps, named_events

    doc = {"text": 'é 𝄞 \u2028 "q" \\ ' * 5000, "n": [1, 2.5, None, True], "e": {}}
    assert orjson.loads(dumps(doc, large=True)) == orjson.loads(dumps(doc)) == doc
    assert b"\n" not in dumps(doc, large=True)
    events = [("a.b", {"x": 1}), ("c", doc)]
    assert named_events(events, large=True).split(b"\n\n")[:2] == [
        b'event: a.b\ndata: {"x":1}',
        b"event: c\ndata: " + dumps(doc, large=True),
    ]
