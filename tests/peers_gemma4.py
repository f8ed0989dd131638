"""The peers' own test cases for Gemma 4's calls (``gemma4``), as data.

Inputs and expected calls come from vLLM's ``tests/tool_parsers/*``, SGLang's
``test/registered/function_call/*`` and the models' documented markup, written out here by
hand; ``tests/test_peer_cases.py`` runs every case through the middleware under
``provider="auto"`` with the family's usual model id. Where our contract differs from a peer's,
the case says what we give and why.
"""

from __future__ import annotations

from peer_cases import PeerCase, offered

GEMMA = "google/gemma-4-it"
Q = '<|"|>'


def g4(name: str, arguments: str) -> str:
    """A Gemma 4 call block."""
    return f"<|tool_call>call:{name}{{{arguments}}}<tool_call|>"


GEMMA4 = [
    PeerCase(
        "vllm no tool calls",
        "gemma4",
        GEMMA,
        "Hello, how can I help you today?",
        [],
        "Hello, how can I help you today?",
    ),
    PeerCase(
        "vllm single call",
        "gemma4",
        GEMMA,
        g4("get_weather", f"location:{Q}London{Q}"),
        [("get_weather", {"location": "London"})],
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm multiple arguments",
        "gemma4",
        GEMMA,
        g4("get_weather", f"location:{Q}San Francisco{Q},unit:{Q}celsius{Q}"),
        [("get_weather", {"location": "San Francisco", "unit": "celsius"})],
        tools=offered("get_weather"),
    ),
    # vLLM strips the content's trailing space; the model's text is kept as written here.
    PeerCase(
        "vllm text before a call",
        "gemma4",
        GEMMA,
        "Let me check the weather for you. " + g4("get_weather", f"location:{Q}Paris{Q}"),
        [("get_weather", {"location": "Paris"})],
        "Let me check the weather for you. ",
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm multiple calls",
        "gemma4",
        GEMMA,
        g4("get_weather", f"location:{Q}London{Q}") + g4("get_time", f"location:{Q}London{Q}"),
        [("get_weather", {"location": "London"}), ("get_time", {"location": "London"})],
        tools=offered("get_weather", "get_time"),
    ),
    PeerCase(
        "vllm nested arguments",
        "gemma4",
        GEMMA,
        g4("complex_function", f"nested:{{inner:{Q}value{Q}}},list:[{Q}a{Q},{Q}b{Q}]"),
        [("complex_function", {"nested": {"inner": "value"}, "list": ["a", "b"]})],
        tools=offered("complex_function"),
    ),
    PeerCase(
        "vllm numbers and booleans",
        "gemma4",
        GEMMA,
        g4("set_status", "is_active:true,count:42,score:3.14"),
        [("set_status", {"is_active": True, "count": 42, "score": 3.14})],
        tools=offered("set_status"),
    ),
    # vLLM leaves an unclosed block as text. Here the call streamed as it came, and a call cut
    # off by the end of the stream keeps what arrived, as in every format (finish "length").
    PeerCase(
        "vllm incomplete call",
        "gemma4",
        GEMMA,
        f"<|tool_call>call:get_weather{{location:{Q}London",
        [("get_weather", {"location": "London"})],
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm hyphenated name",
        "gemma4",
        GEMMA,
        g4("get-weather", f"location:{Q}London{Q}"),
        [("get-weather", {"location": "London"})],
        tools=offered("get-weather"),
    ),
    PeerCase(
        "vllm dotted name",
        "gemma4",
        GEMMA,
        g4("weather.get", f"location:{Q}London{Q}"),
        [("weather.get", {"location": "London"})],
        tools=offered("weather.get"),
    ),
    PeerCase(
        "vllm no arguments",
        "gemma4",
        GEMMA,
        g4("get_status", ""),
        [("get_status", {})],
        tools=offered("get_status"),
    ),
    PeerCase(
        "vllm string with a comma",
        "gemma4",
        GEMMA,
        g4("get_weather", f"location:{Q}Paris, France{Q}"),
        [("get_weather", {"location": "Paris, France"})],
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm html argument",
        "gemma4",
        GEMMA,
        g4(
            "write_file",
            f'path:{Q}index.html{Q},content:{Q}<!DOCTYPE html>\n<html lang="zh-CN">\n'
            f'<head>\n    <meta charset="UTF-8">\n{Q}',
        ),
        [
            (
                "write_file",
                {
                    "path": "index.html",
                    "content": '<!DOCTYPE html>\n<html lang="zh-CN">\n<head>\n'
                    '    <meta charset="UTF-8">\n',
                },
            )
        ],
        tools=offered("write_file"),
    ),
    PeerCase(
        "vllm trailing bare boolean",
        "gemma4",
        GEMMA,
        g4(
            "Edit",
            f"file_path:{Q}src/env.py{Q},old_string:{Q}old_val{Q},new_string:{Q}new_val{Q},"
            "replace_all:false",
        ),
        [
            (
                "Edit",
                {
                    "file_path": "src/env.py",
                    "old_string": "old_val",
                    "new_string": "new_val",
                    "replace_all": False,
                },
            )
        ],
        tools=offered("Edit"),
    ),
    PeerCase(
        "vllm boolean inside a nested object",
        "gemma4",
        GEMMA,
        g4("search", "input:{all:true}"),
        [("search", {"input": {"all": True}})],
        tools=offered("search"),
    ),
    PeerCase(
        "vllm html after a call",
        "gemma4",
        GEMMA,
        g4("get_weather", f"location:{Q}Paris{Q}") + "<div>",
        [("get_weather", {"location": "Paris"})],
        "<div>",
        tools=offered("get_weather"),
    ),
    *(
        PeerCase(
            f"vllm args {arguments}",
            "gemma4",
            GEMMA,
            g4("f", arguments),
            [("f", expected)],
            tools=offered("f"),
        )
        for arguments, expected in [
            ("count:42", {"count": 42}),
            ("score:3.14", {"score": 3.14}),
            ("flag:false", {"flag": False}),
            ("param:null", {"param": None}),
            (
                f"name:{Q}test{Q},count:42,active:true,score:3.14",
                {"name": "test", "count": 42, "active": True, "score": 3.14},
            ),
            (f"record_map:{{{Q}3{Q}:{Q}new text{Q}}}", {"record_map": {"3": "new text"}}),
            (
                f"outer:{{inner:{{{Q}3{Q}:{Q}new text{Q}}}}}",
                {"outer": {"inner": {"3": "new text"}}},
            ),
            (f"items:[{Q}a{Q},{Q}b{Q}]", {"items": ["a", "b"]}),
            ("key:", {"key": ""}),
            ("left:108.,right:22.8", {"left": 108.0, "right": 22.8}),
            ("items:[42,true,3.14]", {"items": [42, True, 3.14]}),
            ("items:[]", {"items": []}),
            (f"items:[[{Q}a]b{Q},{Q}c{Q}],{Q}tail{Q}]", {"items": [["a]b", "c"], "tail"]}),
        ]
    ),
    PeerCase(
        "vllm unterminated string",
        "gemma4",
        GEMMA,
        f"<|tool_call>call:f{{key:{Q}unterminated",
        [("f", {"key": "unterminated"})],
        tools=offered("f"),
    ),
    PeerCase(
        "vllm canonical bash",
        "gemma4",
        GEMMA,
        g4("bash", f"command:{Q}ls -la /work{Q}"),
        [("bash", {"command": "ls -la /work"})],
        tools=offered("bash"),
    ),
    PeerCase(
        "vllm turn end closes a call",
        "gemma4",
        GEMMA,
        f"<|tool_call>call:gdb{{args:{Q}-batch -ex run /tmp/poc{Q}}}<turn|>",
        [("gdb", {"args": "-batch -ex run /tmp/poc"})],
        tools=offered("gdb"),
    ),
    PeerCase(
        "vllm sequential calls",
        "gemma4",
        GEMMA,
        g4("read_file", f"path:{Q}/work/Makefile{Q}")
        + "\n"
        + g4("bash", f"command:{Q}make -j8{Q}"),
        [("read_file", {"path": "/work/Makefile"}), ("bash", {"command": "make -j8"})],
        "\n",
        tools=offered("read_file", "bash"),
    ),
    PeerCase(
        "vllm bare call after the thought channel",
        "gemma4",
        GEMMA,
        "<|channel>thought\nI need to read the entry source file to inspect the crash point.\n"
        f"<channel|>call:bash{{command:{Q}cat /work/src/entry.c{Q}}}",
        [("bash", {"command": "cat /work/src/entry.c"})],
        reasoning="I need to read the entry source file to inspect the crash point.\n",
        tools=offered("bash"),
        fields=("content",),
    ),
    PeerCase(
        "vllm bare call after a channel close",
        "gemma4",
        GEMMA,
        f"<channel|>call:bash{{command:{Q}ls{Q}}}",
        [("bash", {"command": "ls"})],
        tools=offered("bash"),
    ),
    PeerCase(
        "vllm colon after the call token",
        "gemma4",
        GEMMA,
        f"<|tool_call>:call:bash{{command:{Q}pytest{Q}}}",
        [("bash", {"command": "pytest"})],
        tools=offered("bash"),
    ),
    # vLLM's fallback reads "call:NAME{" anywhere in prose; here only after Gemma's tokens.
    PeerCase(
        "vllm bare call in prose stays text",
        "gemma4",
        GEMMA,
        f"some prose\ncall:bash{{command:{Q}make -j8{Q}}}",
        [],
        "some prose\ncall:bash{command:make -j8}",
    ),
    PeerCase(
        "vllm no call in reasoning text",
        "gemma4",
        GEMMA,
        "Just some reasoning text with no call in it.",
        [],
        "Just some reasoning text with no call in it.",
    ),
]

CASES = GEMMA4
