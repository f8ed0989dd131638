"""The peers' own test cases for the formats of the 2026 flagships, as data.

Inputs and expected calls come from vLLM's ``tests/tool_parsers/*``, SGLang's
``test/registered/function_call/*`` and the models' documented markup, written out here by
hand; ``tests/test_peer_cases.py`` runs every case through the middleware under
``provider="auto"`` with the family's usual model id, in content and in the reasoning fields,
cut anywhere. Where our contract differs from a peer's (a cut-off call keeps what arrived, a lone
``<|`` is text), the case says what we give and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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

CASES: dict[str, list[PeerCase]] = {"kimi_k3": KIMI_K3}
