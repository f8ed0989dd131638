"""The peers' own test cases for the formats of the 2026 flagships, as data.

Inputs and expected calls come from vLLM's ``tests/tool_parsers/*``, SGLang's
``test/registered/function_call/*`` and the models' documented markup, written out here by
hand; ``tests/test_peers_flagships.py`` runs every case through the middleware under
``provider="auto"`` with the family's usual model id, in content and in the reasoning fields,
cut anywhere. Where our contract differs from a peer's (a cut-off call keeps what arrived, a lone
``<|`` is text), the case says what we give and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from peer_cases import REGISTER_USER, REGISTER_USER_PYTHON

K3_THINK_OPEN = "<|open|>think<|sep|>"
K3_THINK_CLOSE = "<|close|>think<|sep|>"
K3_RESPONSE_OPEN = "<|open|>response<|sep|>"
K3_RESPONSE_CLOSE = "<|close|>response<|sep|>"
K3_TOOLS_OPEN = "<|open|>tools<|sep|>"
K3_TOOLS_CLOSE = "<|close|>tools<|sep|>"
K3_MESSAGE_CLOSE = "<|close|>message<|sep|>"


@dataclass(frozen=True)
class PeerCase:
    name: str
    #: The model id the request names (``provider="auto"`` picks the format from it).
    model: str
    text: str
    content: str
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    reasoning: str = ""
    #: The request turns thinking off (``chat_template_kwargs``): the output has no think
    #: block opened for it by the template.
    thinking_off: bool = False
    #: Whether the same text streamed in a reasoning field gives the same calls, with the
    #: content text as reasoning (a think block there is the upstream's own business).
    in_reasoning: bool = True
    #: Tools to offer beyond the called ones: name -> JSON-schema properties.
    schemas: dict[str, dict[str, Any]] = field(default_factory=dict)


def k3_call(tool: str, index: int, args: dict[str, tuple[str, str]]) -> str:
    """A call as K3 writes it (the peers' fixture)."""
    parts = [f'<|open|>call tool="{tool}" index="{index}"<|sep|>']
    for key, (kind, value) in args.items():
        parts.append(
            f'<|open|>argument key="{key}" type="{kind}"<|sep|>{value}<|close|>argument<|sep|>'
        )
    parts.append("<|close|>call<|sep|>")
    return "".join(parts)


def k3_json_call(tool: str, index: int, body: str) -> str:
    """A call whose arguments are one JSON element (rtp-llm's K3 renderer reads these)."""
    return (
        f'<|open|>call tool="{tool}" index="{index}"<|sep|>'
        f'<|open|>json type="object"<|sep|>{body}<|close|>json<|sep|><|close|>call<|sep|>'
    )


K3 = "moonshotai/Kimi-K3"
K3_LEAKED_TOOLS = (
    f'{K3_TOOLS_OPEN}<|open|>call tool="read_agent" index="1"<|sep|>'
    f'<|open|>argument key="id" type="string"<|sep|>worker_1'
    f"<|close|>argument<|sep|><|close|>call<|sep|>{K3_TOOLS_CLOSE}{K3_MESSAGE_CLOSE}"
)

KIMI_K3 = [
    PeerCase(
        "sglang single call",
        K3,
        f"{K3_RESPONSE_OPEN}Let me run it.{K3_RESPONSE_CLOSE}{K3_TOOLS_OPEN}"
        + k3_call("python", 1, {"code": ("string", "print(1)"), "opts": ("object", '{"a": 1}')})
        + K3_TOOLS_CLOSE,
        "Let me run it.",
        (("python", {"code": "print(1)", "opts": {"a": 1}}),),
    ),
    PeerCase(
        "sglang no tools channel",
        K3,
        f"{K3_RESPONSE_OPEN}hi there{K3_RESPONSE_CLOSE}{K3_MESSAGE_CLOSE}",
        "hi there",
    ),
    PeerCase(
        "sglang multiple calls",
        K3,
        K3_TOOLS_OPEN
        + k3_call("python", 1, {"code": ("string", "a")})
        + k3_call("python", 2, {"code": ("string", "b")})
        + K3_TOOLS_CLOSE,
        "",
        (("python", {"code": "a"}), ("python", {"code": "b"})),
    ),
    PeerCase(
        "sglang unclosed tools section",
        K3,
        K3_TOOLS_OPEN + k3_call("python", 1, {"code": ("string", "x")}),
        "",
        (("python", {"code": "x"}),),
    ),
    PeerCase(
        "sglang escaped attributes, raw string values",
        K3,
        f'{K3_TOOLS_OPEN}<|open|>call tool="a&amp;b" index="1"<|sep|>'
        '<|open|>argument key="q" type="string"<|sep|>say &quot;hi&quot;<|close|>argument<|sep|>'
        f"<|close|>call<|sep|>{K3_TOOLS_CLOSE}",
        "",
        (("a&b", {"q": "say &quot;hi&quot;"}),),
    ),
    PeerCase(
        "sglang typed values and JSON that is not",
        K3,
        K3_TOOLS_OPEN
        + k3_call(
            "python",
            1,
            {"n": ("number", "42"), "flag": ("boolean", "true"), "bad": ("object", "{not json")},
        )
        + K3_TOOLS_CLOSE,
        "",
        (("python", {"n": 42, "flag": True, "bad": "{not json"}),),
    ),
    PeerCase(
        "sglang split markers",
        K3,
        f"{K3_RESPONSE_OPEN}Hello!{K3_RESPONSE_CLOSE}{K3_TOOLS_OPEN}"
        + k3_call("python", 1, {"code": ("string", "print(2)")})
        + K3_TOOLS_CLOSE,
        "Hello!",
        (("python", {"code": "print(2)"}),),
    ),
    PeerCase("sglang plain reply", K3, "just a plain reply", "just a plain reply", (), "", True),
    PeerCase(
        "sglang leaked tools section",
        K3,
        K3_LEAKED_TOOLS,
        "",
        (("read_agent", {"id": "worker_1"}),),
    ),
    PeerCase(
        "sglang reply kept before a tools section",
        K3,
        f"{K3_RESPONSE_OPEN}on it{K3_RESPONSE_CLOSE}{K3_LEAKED_TOOLS}",
        "on it",
        (("read_agent", {"id": "worker_1"}),),
    ),
    PeerCase(
        "sglang think channel to reasoning",
        K3,
        f"{K3_THINK_OPEN}secret{K3_THINK_CLOSE}visible",
        "visible",
        reasoning="secret",
        in_reasoning=False,
    ),
    PeerCase(
        "sglang think channel cut off",
        K3,
        f"{K3_THINK_OPEN}cut off mid-thought",
        "",
        reasoning="cut off mid-thought",
        in_reasoning=False,
    ),
    PeerCase(
        "sglang think opened by the template",
        K3,
        f"deliberating{K3_THINK_CLOSE}visible",
        "visible",
        reasoning="deliberating",
        in_reasoning=False,
    ),
    PeerCase(
        "sglang think opened by the template, then a call",
        K3,
        f"deliberating{K3_THINK_CLOSE}{K3_LEAKED_TOOLS}",
        "",
        (("read_agent", {"id": "worker_1"}),),
        reasoning="deliberating",
        in_reasoning=False,
    ),
    PeerCase(
        "sglang trace then response",
        K3,
        f"trace{K3_THINK_CLOSE}{K3_RESPONSE_OPEN}answer{K3_RESPONSE_CLOSE}",
        "answer",
        reasoning="trace",
        in_reasoning=False,
    ),
    PeerCase(
        "sglang truncated marker after text",
        K3,
        "done<|open|>tool",
        "done",
        thinking_off=True,
    ),
    PeerCase(
        "sglang narration before a truncated marker",
        K3,
        "I am delegating the docs subagent.<|close|>response",
        "I am delegating the docs subagent.",
        thinking_off=True,
    ),
    # SGLang drops "<|open|>call" whole; the token is never text, the word is the model's.
    PeerCase(
        "sglang quoted call token",
        K3,
        "calls open with <|open|>call, then attributes",
        "calls open with call, then attributes",
        thinking_off=True,
    ),
    PeerCase("sglang dangling open dropped", K3, "all done<|open|>", "all done", thinking_off=True),
    PeerCase("sglang dangling < kept", K3, "all done<", "all done<", thinking_off=True),
    PeerCase("vllm message close", "k3", f"Hello{K3_MESSAGE_CLOSE}", "Hello", thinking_off=True),
    PeerCase(
        "rtp-llm thinking split across chunks",
        K3,
        "reasoning<|close|>think<|sep|><|open|>response<|sep|>ANSWER: B"
        "<|close|>response<|sep|><|close|>message<|sep|>",
        "ANSWER: B",
        reasoning="reasoning",
        in_reasoning=False,
    ),
    PeerCase(
        "rtp-llm non-thinking envelope",
        K3,
        "ANSWER: D<|close|>response<|sep|><|close|>message<|sep|>",
        "ANSWER: D",
        thinking_off=True,
    ),
    PeerCase(
        "rtp-llm json element",
        K3,
        "<|close|>response<|sep|>"
        + K3_TOOLS_OPEN
        + k3_json_call("get_weather", 1, '{"city": "北京", "days": 3}')
        + K3_TOOLS_CLOSE,
        "",
        (("get_weather", {"city": "北京", "days": 3}),),
        thinking_off=True,
    ),
    PeerCase(
        "rtp-llm typed arguments",
        K3,
        "<|close|>response<|sep|>"
        + K3_TOOLS_OPEN
        + k3_call(
            "search",
            1,
            {"query": ("string", "天气"), "limit": ("number", "5"), "fresh": ("boolean", "true")},
        )
        + K3_TOOLS_CLOSE,
        "",
        (("search", {"query": "天气", "limit": 5, "fresh": True}),),
        thinking_off=True,
    ),
    PeerCase(
        "rtp-llm multiple json calls",
        K3,
        "<|close|>response<|sep|>"
        + K3_TOOLS_OPEN
        + k3_json_call("a", 1, "{}")
        + k3_json_call("b", 2, '{"k": 1}')
        + K3_TOOLS_CLOSE,
        "",
        (("a", {}), ("b", {"k": 1})),
        thinking_off=True,
    ),
    PeerCase(
        "rtp-llm escaped attributes",
        K3,
        f"<|close|>response<|sep|>{K3_TOOLS_OPEN}"
        + k3_json_call("a&amp;b&quot;c", 1, "{}")
        + K3_TOOLS_CLOSE,
        "",
        (('a&b"c', {}),),
        thinking_off=True,
    ),
    PeerCase(
        "rtp-llm thinking then tools",
        K3,
        "think<|close|>think<|sep|><|open|>response<|sep|><|close|>response<|sep|>"
        + K3_TOOLS_OPEN
        + k3_json_call("get_weather", 1, '{"city": "上海"}')
        + K3_TOOLS_CLOSE,
        "",
        (("get_weather", {"city": "上海"}),),
        reasoning="think",
        in_reasoning=False,
    ),
    PeerCase(
        "rtp-llm no tools channel",
        K3,
        "ANSWER<|close|>response<|sep|>",
        "ANSWER",
        thinking_off=True,
    ),
]

GEMMA = "google/gemma-4-it"
Q = '<|"|>'


def g4(name: str, arguments: str) -> str:
    """A Gemma 4 call block."""
    return f"<|tool_call>call:{name}{{{arguments}}}<tool_call|>"


GEMMA4 = [
    PeerCase(
        "vllm no tool calls",
        GEMMA,
        "Hello, how can I help you today?",
        "Hello, how can I help you today?",
    ),
    PeerCase(
        "vllm single call",
        GEMMA,
        g4("get_weather", f"location:{Q}London{Q}"),
        "",
        (("get_weather", {"location": "London"}),),
    ),
    PeerCase(
        "vllm multiple arguments",
        GEMMA,
        g4("get_weather", f"location:{Q}San Francisco{Q},unit:{Q}celsius{Q}"),
        "",
        (("get_weather", {"location": "San Francisco", "unit": "celsius"}),),
    ),
    # vLLM strips the content's trailing space; the model's text is kept as written here.
    PeerCase(
        "vllm text before a call",
        GEMMA,
        "Let me check the weather for you. " + g4("get_weather", f"location:{Q}Paris{Q}"),
        "Let me check the weather for you. ",
        (("get_weather", {"location": "Paris"}),),
    ),
    PeerCase(
        "vllm multiple calls",
        GEMMA,
        g4("get_weather", f"location:{Q}London{Q}") + g4("get_time", f"location:{Q}London{Q}"),
        "",
        (("get_weather", {"location": "London"}), ("get_time", {"location": "London"})),
    ),
    PeerCase(
        "vllm nested arguments",
        GEMMA,
        g4("complex_function", f"nested:{{inner:{Q}value{Q}}},list:[{Q}a{Q},{Q}b{Q}]"),
        "",
        (("complex_function", {"nested": {"inner": "value"}, "list": ["a", "b"]}),),
    ),
    PeerCase(
        "vllm numbers and booleans",
        GEMMA,
        g4("set_status", "is_active:true,count:42,score:3.14"),
        "",
        (("set_status", {"is_active": True, "count": 42, "score": 3.14}),),
    ),
    # vLLM leaves an unclosed block as text. Here the call streamed as it came, and a call cut
    # off by the end of the stream keeps what arrived, as in every format (finish "length").
    PeerCase(
        "vllm incomplete call",
        GEMMA,
        f"<|tool_call>call:get_weather{{location:{Q}London",
        "",
        (("get_weather", {"location": "London"}),),
    ),
    PeerCase(
        "vllm hyphenated name",
        GEMMA,
        g4("get-weather", f"location:{Q}London{Q}"),
        "",
        (("get-weather", {"location": "London"}),),
    ),
    PeerCase(
        "vllm dotted name",
        GEMMA,
        g4("weather.get", f"location:{Q}London{Q}"),
        "",
        (("weather.get", {"location": "London"}),),
    ),
    PeerCase("vllm no arguments", GEMMA, g4("get_status", ""), "", (("get_status", {}),)),
    PeerCase(
        "vllm string with a comma",
        GEMMA,
        g4("get_weather", f"location:{Q}Paris, France{Q}"),
        "",
        (("get_weather", {"location": "Paris, France"}),),
    ),
    PeerCase(
        "vllm html argument",
        GEMMA,
        g4(
            "write_file",
            f'path:{Q}index.html{Q},content:{Q}<!DOCTYPE html>\n<html lang="zh-CN">\n'
            f'<head>\n    <meta charset="UTF-8">\n{Q}',
        ),
        "",
        (
            (
                "write_file",
                {
                    "path": "index.html",
                    "content": '<!DOCTYPE html>\n<html lang="zh-CN">\n<head>\n'
                    '    <meta charset="UTF-8">\n',
                },
            ),
        ),
    ),
    PeerCase(
        "vllm trailing bare boolean",
        GEMMA,
        g4(
            "Edit",
            f"file_path:{Q}src/env.py{Q},old_string:{Q}old_val{Q},new_string:{Q}new_val{Q},"
            "replace_all:false",
        ),
        "",
        (
            (
                "Edit",
                {
                    "file_path": "src/env.py",
                    "old_string": "old_val",
                    "new_string": "new_val",
                    "replace_all": False,
                },
            ),
        ),
    ),
    PeerCase(
        "vllm boolean inside a nested object",
        GEMMA,
        g4("search", "input:{all:true}"),
        "",
        (("search", {"input": {"all": True}}),),
    ),
    PeerCase(
        "vllm html after a call",
        GEMMA,
        g4("get_weather", f"location:{Q}Paris{Q}") + "<div>",
        "<div>",
        (("get_weather", {"location": "Paris"}),),
    ),
    *(
        PeerCase(f"vllm args {arguments}", GEMMA, g4("f", arguments), "", (("f", expected),))
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
        GEMMA,
        f"<|tool_call>call:f{{key:{Q}unterminated",
        "",
        (("f", {"key": "unterminated"}),),
    ),
    PeerCase(
        "vllm canonical bash",
        GEMMA,
        g4("bash", f"command:{Q}ls -la /work{Q}"),
        "",
        (("bash", {"command": "ls -la /work"}),),
    ),
    PeerCase(
        "vllm turn end closes a call",
        GEMMA,
        f"<|tool_call>call:gdb{{args:{Q}-batch -ex run /tmp/poc{Q}}}<turn|>",
        "",
        (("gdb", {"args": "-batch -ex run /tmp/poc"}),),
    ),
    PeerCase(
        "vllm sequential calls",
        GEMMA,
        g4("read_file", f"path:{Q}/work/Makefile{Q}")
        + "\n"
        + g4("bash", f"command:{Q}make -j8{Q}"),
        "\n",
        (("read_file", {"path": "/work/Makefile"}), ("bash", {"command": "make -j8"})),
    ),
    PeerCase(
        "vllm bare call after the thought channel",
        GEMMA,
        "<|channel>thought\nI need to read the entry source file to inspect the crash point.\n"
        f"<channel|>call:bash{{command:{Q}cat /work/src/entry.c{Q}}}",
        "",
        (("bash", {"command": "cat /work/src/entry.c"}),),
        reasoning="I need to read the entry source file to inspect the crash point.\n",
        in_reasoning=False,
    ),
    PeerCase(
        "vllm bare call after a channel close",
        GEMMA,
        f"<channel|>call:bash{{command:{Q}ls{Q}}}",
        "",
        (("bash", {"command": "ls"}),),
    ),
    PeerCase(
        "vllm colon after the call token",
        GEMMA,
        f"<|tool_call>:call:bash{{command:{Q}pytest{Q}}}",
        "",
        (("bash", {"command": "pytest"}),),
    ),
    # vLLM's fallback reads "call:NAME{" anywhere in prose; here only after Gemma's tokens.
    PeerCase(
        "vllm bare call in prose stays text",
        GEMMA,
        f"some prose\ncall:bash{{command:{Q}make -j8{Q}}}",
        "some prose\ncall:bash{command:make -j8}",
    ),
    PeerCase(
        "vllm no call in reasoning text",
        GEMMA,
        "Just some reasoning text with no call in it.",
        "Just some reasoning text with no call in it.",
    ),
]

LLAMA4 = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
SIMPLE = "get_weather(city='San Francisco', metric='celsius')"
SIMPLE_CALL = ("get_weather", {"city": "San Francisco", "metric": "celsius"})
MORE_TYPES = REGISTER_USER_PYTHON
MORE_TYPES_CALL = ("register_user", REGISTER_USER)
LA = "get_weather(city='LA', metric='C')"
LA_CALL = ("get_weather", {"city": "LA", "metric": "C"})
OFFERED = {"bad": {}, "calc": {}, "f": {}, "g": {}, "foo": {}}

PYTHONIC = [
    PeerCase("vllm no tool call", LLAMA4, "How can I help you today?", "How can I help you today?"),
    PeerCase("vllm simple", LLAMA4, f"[{SIMPLE}]", "", (SIMPLE_CALL,)),
    PeerCase("vllm more types", LLAMA4, f"[{MORE_TYPES}]", "", (MORE_TYPES_CALL,)),
    PeerCase("vllm parameterless", LLAMA4, "[get_weather()]", "", (("get_weather", {}),)),
    PeerCase(
        "vllm empty dict",
        LLAMA4,
        "[do_something_cool(additional_data={})]",
        "",
        (("do_something_cool", {"additional_data": {}}),),
    ),
    PeerCase(
        "vllm empty list",
        LLAMA4,
        "[do_something_cool(steps=[])]",
        "",
        (("do_something_cool", {"steps": []}),),
    ),
    PeerCase(
        "vllm escaped strings",
        LLAMA4,
        r"""[get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')]""",
        "",
        (("get_weather", {"city": "Martha's Vineyard", "metric": '"cool units"'}),),
    ),
    PeerCase(
        "vllm parallel calls",
        LLAMA4,
        f"[{SIMPLE}, {MORE_TYPES}]",
        "",
        (SIMPLE_CALL, MORE_TYPES_CALL),
    ),
    PeerCase(
        "vllm parallel calls without spaces",
        LLAMA4,
        "[get_weather(city='LA',metric='C'),register_user(name='Doe',age=9)]",
        "",
        (LA_CALL, ("register_user", {"name": "Doe", "age": 9})),
    ),
    PeerCase(
        "vllm python tags",
        LLAMA4,
        f"<|python_start|>[{LA}]<|python_end|>",
        "",
        (LA_CALL,),
    ),
    PeerCase(
        "vllm python start without its end",
        LLAMA4,
        f"<|python_start|>[{LA},register_user(name='Doe', age=9)]",
        "",
        (LA_CALL, ("register_user", {"name": "Doe", "age": 9})),
    ),
    PeerCase(
        "vllm large steps",
        LLAMA4,
        f"<|python_start|>[{LA}, get_weather(), do_something_cool(steps=[])]<|python_end|>",
        "",
        (LA_CALL, ("get_weather", {}), ("do_something_cool", {"steps": []})),
    ),
    # The peers drop a call that does not convert; it is the model's text here.
    PeerCase(
        "vllm bad sibling call",
        LLAMA4,
        f"<|python_start|>[bad(x=b'z'), {LA}]<|python_end|>",
        "bad(x=b'z')",
        (LA_CALL,),
        schemas=OFFERED,
    ),
    PeerCase(
        "vllm bad sibling without tags",
        LLAMA4,
        f"[bad(x=b'z'), {SIMPLE}]",
        "bad(x=b'z')",
        (SIMPLE_CALL,),
        schemas=OFFERED,
    ),
    PeerCase(
        "vllm non-finite argument",
        LLAMA4,
        f"<|python_start|>[calc(x=1e999), {LA}]<|python_end|>",
        "calc(x=1e999)",
        (LA_CALL,),
        schemas=OFFERED,
    ),
    PeerCase(
        "vllm good call beside an unparsable one",
        LLAMA4,
        f"[{SIMPLE}, f(a='x 'y', b='z')]",
        "f(a='x 'y', b='z')]",
        (SIMPLE_CALL,),
        schemas=OFFERED,
    ),
    PeerCase(
        "vllm unrecoverable block",
        LLAMA4,
        "[f(a='x 'y' 'z), g(b='p 'q' 'r)]",
        "[f(a='x 'y' 'z), g(b='p 'q' 'r)]",
        schemas=OFFERED,
    ),
    PeerCase(
        "vllm mismatched brackets",
        LLAMA4,
        "<|python_start|>[foo(x=1])]<|python_end|>",
        "[foo(x=1])]",
        schemas=OFFERED,
    ),
    PeerCase(
        "sglang text before the list",
        LLAMA4,
        "I will check the weather for you. [get_weather(city='Tokyo')]",
        "I will check the weather for you. ",
        (("get_weather", {"city": "Tokyo"}),),
    ),
    PeerCase(
        "sglang dict and list arguments",
        LLAMA4,
        "[search(query={'key': 'value', 'nested': {'a': 1}}), search(query=['a', 'b'])]",
        "",
        (
            ("search", {"query": {"key": "value", "nested": {"a": 1}}}),
            ("search", {"query": ["a", "b"]}),
        ),
    ),
    PeerCase("sglang unknown tool name", LLAMA4, "[unknown_func(arg=1)]", "[unknown_func(arg=1)]"),
    PeerCase("sglang malformed", LLAMA4, "[get_weather(city=)]", "[get_weather(city=)]"),
    PeerCase(
        "sglang no brackets", LLAMA4, "get_weather(city='Tokyo')", "get_weather(city='Tokyo')"
    ),
    # SGLang ignores a positional argument and sends {}; such a call is text here.
    PeerCase(
        "sglang positional argument", LLAMA4, "[get_weather('Tokyo')]", "[get_weather('Tokyo')]"
    ),
    PeerCase(
        "sglang bracket inside a string",
        LLAMA4,
        '[get_weather(city="]")]',
        "",
        (("get_weather", {"city": "]"}),),
    ),
    PeerCase(
        "a list comprehension in an answer",
        LLAMA4,
        "Use [get_weather(city=c) for c in cities] here.",
        "Use [get_weather(city=c) for c in cities] here.",
    ),
]

OLMO3 = "allenai/Olmo-3-7B-Instruct"
FC, FC_END = "<function_calls>", "</function_calls>"
MORE_TYPES_JSON_LITERALS = MORE_TYPES.replace("role=None", "role=null").replace(
    "passed_test=True", "passed_test=true"
)

OLMO_3 = [
    PeerCase("vllm no tool call", OLMO3, "How can I help you today?", "How can I help you today?"),
    PeerCase("vllm simple", OLMO3, f"{FC}{SIMPLE}{FC_END}", "", (SIMPLE_CALL,)),
    PeerCase("vllm more types", OLMO3, f"{FC}{MORE_TYPES}{FC_END}", "", (MORE_TYPES_CALL,)),
    PeerCase(
        "vllm JSON literals",
        OLMO3,
        f"{FC}{MORE_TYPES_JSON_LITERALS}{FC_END}",
        "",
        (MORE_TYPES_CALL,),
    ),
    PeerCase("vllm parameterless", OLMO3, f"{FC}get_weather(){FC_END}", "", (("get_weather", {}),)),
    PeerCase(
        "vllm empty dict",
        OLMO3,
        f"{FC}do_something_cool(additional_data={{}}){FC_END}",
        "",
        (("do_something_cool", {"additional_data": {}}),),
    ),
    PeerCase(
        "vllm empty list",
        OLMO3,
        f"{FC}do_something_cool(steps=[]){FC_END}",
        "",
        (("do_something_cool", {"steps": []}),),
    ),
    PeerCase(
        "vllm escaped strings",
        OLMO3,
        FC + r"""get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')""" + FC_END,
        "",
        (("get_weather", {"city": "Martha's Vineyard", "metric": '"cool units"'}),),
    ),
    PeerCase(
        "vllm parallel calls on lines",
        OLMO3,
        f"{FC}{SIMPLE}\n{MORE_TYPES}{FC_END}",
        "",
        (SIMPLE_CALL, MORE_TYPES_CALL),
    ),
    PeerCase(
        "vllm large steps",
        OLMO3,
        f"{FC}{SIMPLE}\nget_weather()\ndo_something_cool(steps=[]){FC_END}",
        "",
        (SIMPLE_CALL, ("get_weather", {}), ("do_something_cool", {"steps": []})),
    ),
    # The peers drop a call that does not convert; it is the model's text here.
    PeerCase(
        "vllm bad sibling call",
        OLMO3,
        f"{FC}bad(x=b'z')\n{SIMPLE}{FC_END}",
        "bad(x=b'z')",
        (SIMPLE_CALL,),
    ),
    PeerCase(
        "vllm non-finite argument",
        OLMO3,
        f"{FC}calc(x=1e999)\n{SIMPLE}{FC_END}",
        "calc(x=1e999)",
        (SIMPLE_CALL,),
    ),
    PeerCase(
        "vllm mismatched brackets",
        OLMO3,
        f"{FC}foo(x=1]){FC_END}",
        f"{FC}foo(x=1]){FC_END}",
    ),
    PeerCase(
        "text around the block",
        OLMO3,
        f"Checking.\n{FC}{SIMPLE}{FC_END}\nDone.",
        "Checking.\n\nDone.",
        (SIMPLE_CALL,),
    ),
]

MIMO = "XiaomiMiMo/MiMo-V2-Flash"


def mimo(function: str, *parameters: tuple[str, str]) -> str:
    """A MiMo call: Qwen3-Coder's XML, each value on its tag's line."""
    body = "".join(f"<parameter={k}>{v}</parameter>\n" for k, v in parameters)
    return f"<tool_call>\n<function={function}>\n{body}</function>\n</tool_call>"


MIMO_V2 = [
    PeerCase(
        "vllm basic call",
        MIMO,
        "Here is the result:\n" + mimo("execute_bash", ("command", "pwd && ls")),
        "Here is the result:\n",
        (("execute_bash", {"command": "pwd && ls"}),),
    ),
    PeerCase(
        "vllm multiple calls",
        MIMO,
        "Here is the result:\n"
        + mimo("execute_bash", ("command", "pwd"))
        + "\n"
        + mimo("list_files"),
        "Here is the result:\n\n",
        (("execute_bash", {"command": "pwd"}), ("list_files", {})),
    ),
    PeerCase(
        "vllm several parameters",
        MIMO,
        mimo("execute_code", ("language", "python"), ("code", 'print("hello")')),
        "",
        (("execute_code", {"language": "python", "code": 'print("hello")'}),),
    ),
    PeerCase(
        "vllm no calls",
        MIMO,
        "This is just regular text without any tool calls.",
        "This is just regular text without any tool calls.",
    ),
    # vLLM strips the newline before the call; the model's text is kept as written here.
    PeerCase(
        "vllm content before a call",
        MIMO,
        "Let me execute that command for you.\n" + mimo("execute_bash", ("command", "echo hello")),
        "Let me execute that command for you.\n",
        (("execute_bash", {"command": "echo hello"}),),
    ),
    PeerCase("vllm empty arguments", MIMO, mimo("noop"), "", (("noop", {}),)),
    PeerCase(
        "vllm multiline value",
        MIMO,
        mimo(
            "example_function_name",
            ("example_parameter_1", "value_1"),
            (
                "example_parameter_2",
                "This is the value for the second parameter\nthat can span\nmultiple lines",
            ),
        ),
        "",
        (
            (
                "example_function_name",
                {
                    "example_parameter_1": "value_1",
                    "example_parameter_2": "This is the value for the second parameter\n"
                    "that can span\nmultiple lines",
                },
            ),
        ),
    ),
    PeerCase(
        "sglang typed by the schema",
        MIMO,
        mimo("search", ("query", "rust"), ("limit", "5"), ("fresh", "true"), ("tags", '["a"]')),
        "",
        (("search", {"query": "rust", "limit": 5, "fresh": True, "tags": ["a"]}),),
        schemas={
            "search": {
                "query": {"type": "string"},
                "limit": {"type": "integer"},
                "fresh": {"type": "boolean"},
                "tags": {"type": "array"},
            }
        },
    ),
]

INTERNLM = "internlm/internlm2_5-7b-chat"
ACTION, ACTION_END = "<|action_start|><|plugin|>", "<|action_end|>"
TOKYO = '{"name": "get_weather", "parameters": {"city": "Tokyo"}}'

INTERNLM2 = [
    PeerCase(
        "vllm no tool calls",
        INTERNLM,
        "This is a regular response without any tool calls.",
        "This is a regular response without any tool calls.",
    ),
    PeerCase(
        "vllm single call",
        INTERNLM,
        ACTION + TOKYO + ACTION_END,
        "",
        (("get_weather", {"city": "Tokyo"}),),
    ),
    PeerCase(
        "vllm various data types",
        INTERNLM,
        ACTION
        + """{
  "name": "test_function",
  "parameters": {
    "string_field": "hello",
    "int_field": 42,
    "float_field": 3.14,
    "bool_field": true,
    "null_field": null,
    "array_field": ["a", "b", "c"],
    "object_field": {"nested": "value"},
    "empty_array": [],
    "empty_object": {}
  }
}"""
        + ACTION_END,
        "",
        (
            (
                "test_function",
                {
                    "string_field": "hello",
                    "int_field": 42,
                    "float_field": 3.14,
                    "bool_field": True,
                    "null_field": None,
                    "array_field": ["a", "b", "c"],
                    "object_field": {"nested": "value"},
                    "empty_array": [],
                    "empty_object": {},
                },
            ),
        ),
    ),
    PeerCase(
        "vllm empty arguments",
        INTERNLM,
        ACTION + '{"name": "refresh", "parameters": {}}' + ACTION_END,
        "",
        (("refresh", {}),),
    ),
    PeerCase(
        "vllm surrounding text",
        INTERNLM,
        "Let me check the weather for you. " + ACTION + TOKYO + ACTION_END,
        "Let me check the weather for you. ",
        (("get_weather", {"city": "Tokyo"}),),
    ),
    PeerCase(
        "vllm escaped strings",
        INTERNLM,
        ACTION
        + r"""{"name": "test_function", "parameters": {"quoted": "He said \"hello\"",
 "path": "C:\\Users\\file.txt", "newline": "line1\nline2", "unicode": "emoji: 🎉"}}"""
        + ACTION_END,
        "",
        (
            (
                "test_function",
                {
                    "quoted": 'He said "hello"',
                    "path": "C:\\Users\\file.txt",
                    "newline": "line1\nline2",
                    "unicode": "emoji: 🎉",
                },
            ),
        ),
    ),
    # Malformed calls are the model's text (their lone <|action_end|> a stray).
    PeerCase(
        "vllm malformed: arguments that are no object",
        INTERNLM,
        ACTION + '{"name": "func", "parameters": "not a dict"}' + ACTION_END,
        ACTION + '{"name": "func", "parameters": "not a dict"}',
    ),
    PeerCase(
        "vllm malformed: not JSON",
        INTERNLM,
        ACTION + "not json" + ACTION_END,
        ACTION + "not json",
    ),
    PeerCase("vllm malformed: nothing after the tokens", INTERNLM, ACTION, ACTION),
]

CASES: dict[str, list[PeerCase]] = {
    "internlm": INTERNLM2,
    "qwen3_coder": MIMO_V2,
    "kimi_k3": KIMI_K3,
    "gemma4": GEMMA4,
    "pythonic": PYTHONIC,
    "olmo3": OLMO_3,
}
