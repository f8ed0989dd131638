"""The peers' own test cases for Python call lists: Llama 4's (``pythonic``) and Olmo 3's
(``olmo3``), as data.

Inputs and expected calls come from vLLM's ``tests/tool_parsers/*``, SGLang's
``test/registered/function_call/*`` and the models' documented markup, written out here by
hand; ``tests/test_peer_cases.py`` runs every case through the middleware under
``provider="auto"`` with the family's usual model id. Where our contract differs from a peer's,
the case says what we give and why.
"""

from __future__ import annotations

from peer_cases import REGISTER_USER, REGISTER_USER_PYTHON, PeerCase, offered

LLAMA4 = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
SIMPLE = "get_weather(city='San Francisco', metric='celsius')"
SIMPLE_CALL = ("get_weather", {"city": "San Francisco", "metric": "celsius"})
MORE_TYPES = REGISTER_USER_PYTHON
MORE_TYPES_CALL = ("register_user", REGISTER_USER)
LA = "get_weather(city='LA', metric='C')"
LA_CALL = ("get_weather", {"city": "LA", "metric": "C"})
OFFERED = offered("bad", "calc", "f", "g", "foo")

PYTHONIC = [
    PeerCase(
        "vllm no tool call",
        "pythonic",
        LLAMA4,
        "How can I help you today?",
        [],
        "How can I help you today?",
    ),
    PeerCase(
        "vllm simple",
        "pythonic",
        LLAMA4,
        f"[{SIMPLE}]",
        [SIMPLE_CALL],
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm more types",
        "pythonic",
        LLAMA4,
        f"[{MORE_TYPES}]",
        [MORE_TYPES_CALL],
        tools=offered("register_user"),
    ),
    PeerCase(
        "vllm parameterless",
        "pythonic",
        LLAMA4,
        "[get_weather()]",
        [("get_weather", {})],
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm empty dict",
        "pythonic",
        LLAMA4,
        "[do_something_cool(additional_data={})]",
        [("do_something_cool", {"additional_data": {}})],
        tools=offered("do_something_cool"),
    ),
    PeerCase(
        "vllm empty list",
        "pythonic",
        LLAMA4,
        "[do_something_cool(steps=[])]",
        [("do_something_cool", {"steps": []})],
        tools=offered("do_something_cool"),
    ),
    PeerCase(
        "vllm escaped strings",
        "pythonic",
        LLAMA4,
        r"""[get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')]""",
        [("get_weather", {"city": "Martha's Vineyard", "metric": '"cool units"'})],
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm parallel calls",
        "pythonic",
        LLAMA4,
        f"[{SIMPLE}, {MORE_TYPES}]",
        [SIMPLE_CALL, MORE_TYPES_CALL],
        tools=offered("get_weather", "register_user"),
    ),
    PeerCase(
        "vllm parallel calls without spaces",
        "pythonic",
        LLAMA4,
        "[get_weather(city='LA',metric='C'),register_user(name='Doe',age=9)]",
        [LA_CALL, ("register_user", {"name": "Doe", "age": 9})],
        tools=offered("get_weather", "register_user"),
    ),
    PeerCase(
        "vllm python tags",
        "pythonic",
        LLAMA4,
        f"<|python_start|>[{LA}]<|python_end|>",
        [LA_CALL],
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm python start without its end",
        "pythonic",
        LLAMA4,
        f"<|python_start|>[{LA},register_user(name='Doe', age=9)]",
        [LA_CALL, ("register_user", {"name": "Doe", "age": 9})],
        tools=offered("get_weather", "register_user"),
    ),
    PeerCase(
        "vllm large steps",
        "pythonic",
        LLAMA4,
        f"<|python_start|>[{LA}, get_weather(), do_something_cool(steps=[])]<|python_end|>",
        [LA_CALL, ("get_weather", {}), ("do_something_cool", {"steps": []})],
        tools=offered("get_weather", "do_something_cool"),
    ),
    # The peers drop a call that does not convert; it is the model's text here.
    PeerCase(
        "vllm bad sibling call",
        "pythonic",
        LLAMA4,
        f"<|python_start|>[bad(x=b'z'), {LA}]<|python_end|>",
        [LA_CALL],
        "bad(x=b'z')",
        tools={**offered("get_weather"), **OFFERED},
    ),
    PeerCase(
        "vllm bad sibling without tags",
        "pythonic",
        LLAMA4,
        f"[bad(x=b'z'), {SIMPLE}]",
        [SIMPLE_CALL],
        "bad(x=b'z')",
        tools={**offered("get_weather"), **OFFERED},
    ),
    PeerCase(
        "vllm non-finite argument",
        "pythonic",
        LLAMA4,
        f"<|python_start|>[calc(x=1e999), {LA}]<|python_end|>",
        [LA_CALL],
        "calc(x=1e999)",
        tools={**offered("get_weather"), **OFFERED},
    ),
    PeerCase(
        "vllm good call beside an unparsable one",
        "pythonic",
        LLAMA4,
        f"[{SIMPLE}, f(a='x 'y', b='z')]",
        [SIMPLE_CALL],
        "f(a='x 'y', b='z')]",
        tools={**offered("get_weather"), **OFFERED},
    ),
    PeerCase(
        "vllm unrecoverable block",
        "pythonic",
        LLAMA4,
        "[f(a='x 'y' 'z), g(b='p 'q' 'r)]",
        [],
        "[f(a='x 'y' 'z), g(b='p 'q' 'r)]",
        tools=OFFERED,
    ),
    PeerCase(
        "vllm mismatched brackets",
        "pythonic",
        LLAMA4,
        "<|python_start|>[foo(x=1])]<|python_end|>",
        [],
        "[foo(x=1])]",
        tools=OFFERED,
    ),
    PeerCase(
        "sglang text before the list",
        "pythonic",
        LLAMA4,
        "I will check the weather for you. [get_weather(city='Tokyo')]",
        [("get_weather", {"city": "Tokyo"})],
        "I will check the weather for you. ",
        tools=offered("get_weather"),
    ),
    PeerCase(
        "sglang dict and list arguments",
        "pythonic",
        LLAMA4,
        "[search(query={'key': 'value', 'nested': {'a': 1}}), search(query=['a', 'b'])]",
        [
            ("search", {"query": {"key": "value", "nested": {"a": 1}}}),
            ("search", {"query": ["a", "b"]}),
        ],
        tools=offered("search"),
    ),
    PeerCase(
        "sglang unknown tool name",
        "pythonic",
        LLAMA4,
        "[unknown_func(arg=1)]",
        [],
        "[unknown_func(arg=1)]",
    ),
    PeerCase(
        "sglang malformed", "pythonic", LLAMA4, "[get_weather(city=)]", [], "[get_weather(city=)]"
    ),
    PeerCase(
        "sglang no brackets",
        "pythonic",
        LLAMA4,
        "get_weather(city='Tokyo')",
        [],
        "get_weather(city='Tokyo')",
    ),
    # SGLang ignores a positional argument and sends {}; such a call is text here.
    PeerCase(
        "sglang positional argument",
        "pythonic",
        LLAMA4,
        "[get_weather('Tokyo')]",
        [],
        "[get_weather('Tokyo')]",
    ),
    PeerCase(
        "sglang bracket inside a string",
        "pythonic",
        LLAMA4,
        '[get_weather(city="]")]',
        [("get_weather", {"city": "]"})],
        tools=offered("get_weather"),
    ),
    PeerCase(
        "a list comprehension in an answer",
        "pythonic",
        LLAMA4,
        "Use [get_weather(city=c) for c in cities] here.",
        [],
        "Use [get_weather(city=c) for c in cities] here.",
    ),
]

OLMO3 = "allenai/Olmo-3-7B-Instruct"
FC, FC_END = "<function_calls>", "</function_calls>"
MORE_TYPES_JSON_LITERALS = MORE_TYPES.replace("role=None", "role=null").replace(
    "passed_test=True", "passed_test=true"
)

OLMO_3 = [
    PeerCase(
        "vllm no tool call",
        "olmo3",
        OLMO3,
        "How can I help you today?",
        [],
        "How can I help you today?",
    ),
    PeerCase(
        "vllm simple",
        "olmo3",
        OLMO3,
        f"{FC}{SIMPLE}{FC_END}",
        [SIMPLE_CALL],
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm more types",
        "olmo3",
        OLMO3,
        f"{FC}{MORE_TYPES}{FC_END}",
        [MORE_TYPES_CALL],
        tools=offered("register_user"),
    ),
    PeerCase(
        "vllm JSON literals",
        "olmo3",
        OLMO3,
        f"{FC}{MORE_TYPES_JSON_LITERALS}{FC_END}",
        [MORE_TYPES_CALL],
        tools=offered("register_user"),
    ),
    PeerCase(
        "vllm parameterless",
        "olmo3",
        OLMO3,
        f"{FC}get_weather(){FC_END}",
        [("get_weather", {})],
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm empty dict",
        "olmo3",
        OLMO3,
        f"{FC}do_something_cool(additional_data={{}}){FC_END}",
        [("do_something_cool", {"additional_data": {}})],
        tools=offered("do_something_cool"),
    ),
    PeerCase(
        "vllm empty list",
        "olmo3",
        OLMO3,
        f"{FC}do_something_cool(steps=[]){FC_END}",
        [("do_something_cool", {"steps": []})],
        tools=offered("do_something_cool"),
    ),
    PeerCase(
        "vllm escaped strings",
        "olmo3",
        OLMO3,
        FC + r"""get_weather(city='Martha\'s Vineyard', metric='\"cool units\"')""" + FC_END,
        [("get_weather", {"city": "Martha's Vineyard", "metric": '"cool units"'})],
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm parallel calls on lines",
        "olmo3",
        OLMO3,
        f"{FC}{SIMPLE}\n{MORE_TYPES}{FC_END}",
        [SIMPLE_CALL, MORE_TYPES_CALL],
        tools=offered("get_weather", "register_user"),
    ),
    PeerCase(
        "vllm large steps",
        "olmo3",
        OLMO3,
        f"{FC}{SIMPLE}\nget_weather()\ndo_something_cool(steps=[]){FC_END}",
        [SIMPLE_CALL, ("get_weather", {}), ("do_something_cool", {"steps": []})],
        tools=offered("get_weather", "do_something_cool"),
    ),
    # The peers drop a call that does not convert; it is the model's text here.
    PeerCase(
        "vllm bad sibling call",
        "olmo3",
        OLMO3,
        f"{FC}bad(x=b'z')\n{SIMPLE}{FC_END}",
        [SIMPLE_CALL],
        "bad(x=b'z')",
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm non-finite argument",
        "olmo3",
        OLMO3,
        f"{FC}calc(x=1e999)\n{SIMPLE}{FC_END}",
        [SIMPLE_CALL],
        "calc(x=1e999)",
        tools=offered("get_weather"),
    ),
    PeerCase(
        "vllm mismatched brackets",
        "olmo3",
        OLMO3,
        f"{FC}foo(x=1]){FC_END}",
        [],
        f"{FC}foo(x=1]){FC_END}",
    ),
    PeerCase(
        "text around the block",
        "olmo3",
        OLMO3,
        f"Checking.\n{FC}{SIMPLE}{FC_END}\nDone.",
        [SIMPLE_CALL],
        "Checking.\n\nDone.",
        tools=offered("get_weather"),
    ),
]

CASES = [*PYTHONIC, *OLMO_3]
