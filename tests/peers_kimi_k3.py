"""The peers' own test cases for Kimi K3's channels (``kimi_k3``), as data.

Inputs and expected calls come from vLLM's ``tests/tool_parsers/*``, SGLang's
``test/registered/function_call/*`` and the models' documented markup, written out here by
hand; ``tests/test_peer_cases.py`` runs every case through the middleware under
``provider="auto"`` with the family's usual model id. Where our contract differs from a peer's
(a cut-off call keeps what arrived, a lone ``<|`` is text), the case says what we give and why.
"""

from __future__ import annotations

from peer_cases import PeerCase, offered

K3_THINK_OPEN = "<|open|>think<|sep|>"
K3_THINK_CLOSE = "<|close|>think<|sep|>"
K3_RESPONSE_OPEN = "<|open|>response<|sep|>"
K3_RESPONSE_CLOSE = "<|close|>response<|sep|>"
K3_TOOLS_OPEN = "<|open|>tools<|sep|>"
K3_TOOLS_CLOSE = "<|close|>tools<|sep|>"
K3_MESSAGE_CLOSE = "<|close|>message<|sep|>"


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
        "kimi_k3",
        K3,
        f"{K3_RESPONSE_OPEN}Let me run it.{K3_RESPONSE_CLOSE}{K3_TOOLS_OPEN}"
        + k3_call("python", 1, {"code": ("string", "print(1)"), "opts": ("object", '{"a": 1}')})
        + K3_TOOLS_CLOSE,
        [("python", {"code": "print(1)", "opts": {"a": 1}})],
        "Let me run it.",
        tools=offered("python"),
    ),
    PeerCase(
        "sglang no tools channel",
        "kimi_k3",
        K3,
        f"{K3_RESPONSE_OPEN}hi there{K3_RESPONSE_CLOSE}{K3_MESSAGE_CLOSE}",
        [],
        "hi there",
    ),
    PeerCase(
        "sglang multiple calls",
        "kimi_k3",
        K3,
        K3_TOOLS_OPEN
        + k3_call("python", 1, {"code": ("string", "a")})
        + k3_call("python", 2, {"code": ("string", "b")})
        + K3_TOOLS_CLOSE,
        [("python", {"code": "a"}), ("python", {"code": "b"})],
        tools=offered("python"),
    ),
    PeerCase(
        "sglang unclosed tools section",
        "kimi_k3",
        K3,
        K3_TOOLS_OPEN + k3_call("python", 1, {"code": ("string", "x")}),
        [("python", {"code": "x"})],
        tools=offered("python"),
    ),
    PeerCase(
        "sglang escaped attributes, raw string values",
        "kimi_k3",
        K3,
        f'{K3_TOOLS_OPEN}<|open|>call tool="a&amp;b" index="1"<|sep|>'
        '<|open|>argument key="q" type="string"<|sep|>say &quot;hi&quot;<|close|>argument<|sep|>'
        f"<|close|>call<|sep|>{K3_TOOLS_CLOSE}",
        [("a&b", {"q": "say &quot;hi&quot;"})],
        tools=offered("a&b"),
    ),
    PeerCase(
        "sglang typed values and JSON that is not",
        "kimi_k3",
        K3,
        K3_TOOLS_OPEN
        + k3_call(
            "python",
            1,
            {"n": ("number", "42"), "flag": ("boolean", "true"), "bad": ("object", "{not json")},
        )
        + K3_TOOLS_CLOSE,
        [("python", {"n": 42, "flag": True, "bad": "{not json"})],
        tools=offered("python"),
    ),
    PeerCase(
        "sglang split markers",
        "kimi_k3",
        K3,
        f"{K3_RESPONSE_OPEN}Hello!{K3_RESPONSE_CLOSE}{K3_TOOLS_OPEN}"
        + k3_call("python", 1, {"code": ("string", "print(2)")})
        + K3_TOOLS_CLOSE,
        [("python", {"code": "print(2)"})],
        "Hello!",
        tools=offered("python"),
    ),
    PeerCase(
        "sglang plain reply",
        "kimi_k3",
        K3,
        "just a plain reply",
        [],
        "just a plain reply",
        thinking_off=True,
    ),
    PeerCase(
        "sglang leaked tools section",
        "kimi_k3",
        K3,
        K3_LEAKED_TOOLS,
        [("read_agent", {"id": "worker_1"})],
        tools=offered("read_agent"),
    ),
    PeerCase(
        "sglang reply kept before a tools section",
        "kimi_k3",
        K3,
        f"{K3_RESPONSE_OPEN}on it{K3_RESPONSE_CLOSE}{K3_LEAKED_TOOLS}",
        [("read_agent", {"id": "worker_1"})],
        "on it",
        tools=offered("read_agent"),
    ),
    PeerCase(
        "sglang think channel to reasoning",
        "kimi_k3",
        K3,
        f"{K3_THINK_OPEN}secret{K3_THINK_CLOSE}visible",
        [],
        "visible",
        reasoning="secret",
        fields=("content",),
    ),
    PeerCase(
        "sglang think channel cut off",
        "kimi_k3",
        K3,
        f"{K3_THINK_OPEN}cut off mid-thought",
        [],
        reasoning="cut off mid-thought",
        fields=("content",),
    ),
    PeerCase(
        "sglang think opened by the template",
        "kimi_k3",
        K3,
        f"deliberating{K3_THINK_CLOSE}visible",
        [],
        "visible",
        reasoning="deliberating",
        fields=("content",),
    ),
    PeerCase(
        "sglang think opened by the template, then a call",
        "kimi_k3",
        K3,
        f"deliberating{K3_THINK_CLOSE}{K3_LEAKED_TOOLS}",
        [("read_agent", {"id": "worker_1"})],
        reasoning="deliberating",
        tools=offered("read_agent"),
        fields=("content",),
    ),
    PeerCase(
        "sglang trace then response",
        "kimi_k3",
        K3,
        f"trace{K3_THINK_CLOSE}{K3_RESPONSE_OPEN}answer{K3_RESPONSE_CLOSE}",
        [],
        "answer",
        reasoning="trace",
        fields=("content",),
    ),
    PeerCase(
        "sglang truncated marker after text",
        "kimi_k3",
        K3,
        "done<|open|>tool",
        [],
        "done",
        thinking_off=True,
    ),
    PeerCase(
        "sglang narration before a truncated marker",
        "kimi_k3",
        K3,
        "I am delegating the docs subagent.<|close|>response",
        [],
        "I am delegating the docs subagent.",
        thinking_off=True,
    ),
    # SGLang drops "<|open|>call" whole; the token is never text, the word is the model's.
    PeerCase(
        "sglang quoted call token",
        "kimi_k3",
        K3,
        "calls open with <|open|>call, then attributes",
        [],
        "calls open with call, then attributes",
        thinking_off=True,
    ),
    PeerCase(
        "sglang dangling open dropped",
        "kimi_k3",
        K3,
        "all done<|open|>",
        [],
        "all done",
        thinking_off=True,
    ),
    PeerCase(
        "sglang dangling < kept", "kimi_k3", K3, "all done<", [], "all done<", thinking_off=True
    ),
    PeerCase(
        "vllm message close",
        "kimi_k3",
        "k3",
        f"Hello{K3_MESSAGE_CLOSE}",
        [],
        "Hello",
        thinking_off=True,
    ),
    PeerCase(
        "rtp-llm thinking split across chunks",
        "kimi_k3",
        K3,
        "reasoning<|close|>think<|sep|><|open|>response<|sep|>ANSWER: B"
        "<|close|>response<|sep|><|close|>message<|sep|>",
        [],
        "ANSWER: B",
        reasoning="reasoning",
        fields=("content",),
    ),
    PeerCase(
        "rtp-llm non-thinking envelope",
        "kimi_k3",
        K3,
        "ANSWER: D<|close|>response<|sep|><|close|>message<|sep|>",
        [],
        "ANSWER: D",
        thinking_off=True,
    ),
    PeerCase(
        "rtp-llm json element",
        "kimi_k3",
        K3,
        "<|close|>response<|sep|>"
        + K3_TOOLS_OPEN
        + k3_json_call("get_weather", 1, '{"city": "北京", "days": 3}')
        + K3_TOOLS_CLOSE,
        [("get_weather", {"city": "北京", "days": 3})],
        tools=offered("get_weather"),
        thinking_off=True,
    ),
    PeerCase(
        "rtp-llm typed arguments",
        "kimi_k3",
        K3,
        "<|close|>response<|sep|>"
        + K3_TOOLS_OPEN
        + k3_call(
            "search",
            1,
            {"query": ("string", "天气"), "limit": ("number", "5"), "fresh": ("boolean", "true")},
        )
        + K3_TOOLS_CLOSE,
        [("search", {"query": "天气", "limit": 5, "fresh": True})],
        tools=offered("search"),
        thinking_off=True,
    ),
    PeerCase(
        "rtp-llm multiple json calls",
        "kimi_k3",
        K3,
        "<|close|>response<|sep|>"
        + K3_TOOLS_OPEN
        + k3_json_call("a", 1, "{}")
        + k3_json_call("b", 2, '{"k": 1}')
        + K3_TOOLS_CLOSE,
        [("a", {}), ("b", {"k": 1})],
        tools=offered("a", "b"),
        thinking_off=True,
    ),
    PeerCase(
        "rtp-llm escaped attributes",
        "kimi_k3",
        K3,
        f"<|close|>response<|sep|>{K3_TOOLS_OPEN}"
        + k3_json_call("a&amp;b&quot;c", 1, "{}")
        + K3_TOOLS_CLOSE,
        [('a&b"c', {})],
        tools=offered('a&b"c'),
        thinking_off=True,
    ),
    PeerCase(
        "rtp-llm thinking then tools",
        "kimi_k3",
        K3,
        "think<|close|>think<|sep|><|open|>response<|sep|><|close|>response<|sep|>"
        + K3_TOOLS_OPEN
        + k3_json_call("get_weather", 1, '{"city": "上海"}')
        + K3_TOOLS_CLOSE,
        [("get_weather", {"city": "上海"})],
        reasoning="think",
        tools=offered("get_weather"),
        fields=("content",),
    ),
    PeerCase(
        "rtp-llm no tools channel",
        "kimi_k3",
        K3,
        "ANSWER<|close|>response<|sep|>",
        [],
        "ANSWER",
        thinking_off=True,
    ),
]

CASES = KIMI_K3
