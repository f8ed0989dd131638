"""How each scripted model writes one tool call: its own markup, in the fields a model server
with no tool parser sends it in, written here apart from the package's own writers so that a
run checks the package against markup it did not produce.

``markup`` gives a call as segments ``(fields, text)``: the text goes, cut in small pieces, in
each of ``fields`` of the deltas (GLM's servers send the same reasoning in ``reasoning`` and
``reasoning_content``). ``preamble`` is a sentence the model says before the call in its
answer; formats that write their calls in the reasoning ignore it.

The models that think before they call (DeepSeek, GLM-4.7, MiniMax M3, Kimi K3) say
``THOUGHT`` in their reasoning first, laid out as their recordings in ``sse_logs/`` show.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from xml.sax.saxutils import escape

Segment = tuple[tuple[str, ...], str]
CONTENT = ("content",)
REASONING_CONTENT = ("reasoning_content",)
#: What the thinking models reason before their call.
THOUGHT = "The task needs one shell command."

#: The reasoning each format's call turn starts with (Kimi K2's own sentence, else ``THOUGHT``).
REASONING = {
    "kimi": "I will run the command.",
    **dict.fromkeys(("deepseek_v4", "deepseek_v32", "kimi_k3", "glm47", "minimax_m3"), THOUGHT),
}
#: The formats that write their call inside their reasoning: they say no preamble.
CALLS_IN_REASONING = ("kimi", "deepseek_v32", "glm47")

#: Pieces of the formats' markup that no client may print: the repair turns it all into
#: calls, reasoning or nothing (``<tool_call`` and ``tool_call>`` cover every format's call tags).
MARKERS = (
    "<|tool_calls_section",
    "<tool_call",
    "tool_call>",
    "<function=",
    "<arg_key>",
    "｜DSML｜",
    "<|open|>",
    "<|close|>",
    "<|sep|>",
    "<|tool_response>",
    '<|"|>',
    "]<]minimax[>[",
    "mm:think>",
    "think:opensource>",
)

DSML = "｜DSML｜"  # DeepSeek's special token, full-width bars (U+FF5C)
MINIMAX = "]<]minimax[>["  # MiniMax M3's namespace token, before every tag
GEMMA_QUOTE = '<|"|>'  # Gemma 4's string delimiter token


def raw(value: Any) -> str:
    """A value as the XML formats write it: strings as they are, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def markup(fmt: str, name: str, arguments: dict[str, Any], preamble: str = "") -> list[Segment]:
    """One call of ``name`` with ``arguments`` as ``fmt``'s model writes it."""
    return WRITERS[fmt](name, arguments, preamble)


def kimi_k2(name: str, arguments: dict[str, Any], preamble: str) -> list[Segment]:
    """Kimi K2's special tokens, in its reasoning after a sentence of it."""
    return [
        (
            REASONING_CONTENT,
            "I will run the command. <|tool_calls_section_begin|><|tool_call_begin|>"
            f"functions.{name}:0<|tool_call_argument_begin|>{json.dumps(arguments)}"
            "<|tool_call_end|><|tool_calls_section_end|>",
        )
    ]


def qwen3_coder(name: str, arguments: dict[str, Any], preamble: str) -> list[Segment]:
    params = "".join(
        f"<parameter={key}>\n{raw(value)}\n</parameter>\n" for key, value in arguments.items()
    )
    return [
        (CONTENT, f"{preamble}<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>")
    ]


def hermes(name: str, arguments: dict[str, Any], preamble: str) -> list[Segment]:
    call = json.dumps({"name": name, "arguments": arguments})
    return [(CONTENT, f"{preamble}<tool_call>\n{call}\n</tool_call>")]


def hy3(name: str, arguments: dict[str, Any], preamble: str) -> list[Segment]:
    """The release's spelling of the tags: each with Hy3's token suffix."""
    params = "".join(
        f"<arg_key:opensource>{key}</arg_key:opensource>\n"
        f"<arg_value:opensource>{raw(value)}</arg_value:opensource>\n"
        for key, value in arguments.items()
    )
    return [
        (
            CONTENT,
            f"{preamble}<tool_calls:opensource>\n"
            f"<tool_call:opensource>{name}<tool_sep:opensource>\n"
            f"{params}</tool_call:opensource>\n</tool_calls:opensource>",
        )
    ]


def dsml_block(block: str, name: str, arguments: dict[str, Any]) -> str:
    """DeepSeek's DSML calls: strings raw (``string="true"``), other values JSON."""
    params = "".join(
        f'<{DSML}parameter name="{key}" string="{str(isinstance(value, str)).lower()}">'
        f"{raw(value)}</{DSML}parameter>\n"
        for key, value in arguments.items()
    )
    return (
        f'<{DSML}{block}>\n<{DSML}invoke name="{name}">\n{params}</{DSML}invoke>\n</{DSML}{block}>'
    )


def deepseek_v4(name: str, arguments: dict[str, Any], preamble: str) -> list[Segment]:
    """DeepSeek V4 thinking, under a server that splits its reasoning: the thought in
    ``reasoning_content``, then the content after the think block's end (it starts with the
    two line breaks the model writes there), the ``tool_calls`` block in it."""
    block = dsml_block("tool_calls", name, arguments)
    return [(REASONING_CONTENT, THOUGHT), (CONTENT, f"\n\n{preamble}{block}")]


def deepseek_v32(name: str, arguments: dict[str, Any], preamble: str) -> list[Segment]:
    """DeepSeek V3.2 writes its ``function_calls`` block inside its thinking, on the line
    after its thought: the server passes it all as reasoning."""
    return [(REASONING_CONTENT, f"{THOUGHT}\n{dsml_block('function_calls', name, arguments)}")]


def k3_channel(name: str, text: str) -> str:
    return f"<|open|>{name}<|sep|>{text}<|close|>{name}<|sep|>"


def k3_type(value: Any) -> str:
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    return "array" if isinstance(value, list) else "object"


def kimi_k3(name: str, arguments: dict[str, Any], preamble: str) -> list[Segment]:
    """Kimi K3's channels in content: the response channel (the preamble), then the tools
    channel, then the message's end. The think channel its template opens is written before
    every answer (``ScriptedUpstream.deltas``)."""
    args = "".join(
        f'<|open|>argument key="{escape(key, {chr(34): "&quot;"})}" type="{k3_type(value)}"'
        f"<|sep|>{raw(value)}<|close|>argument<|sep|>"
        for key, value in arguments.items()
    )
    call = f'<|open|>call tool="{escape(name, {chr(34): "&quot;"})}" index="1"<|sep|>{args}'
    said = k3_channel("response", preamble) if preamble else ""
    return [
        (
            CONTENT,
            f"{said}<|open|>tools<|sep|>{call}<|close|>call<|sep|><|close|>tools<|sep|>"
            "<|close|>message<|sep|>",
        )
    ]


def kimi_k3_text(text: str) -> str:
    """An answer of text as Kimi K3 writes it: in its response channel, then the message's
    end."""
    return k3_channel("response", text) + "<|close|>message<|sep|>"


def gemma_value(value: Any) -> str:
    """Gemma 4's argument syntax: bare keys, strings between its quote tokens."""
    if isinstance(value, str):
        return f"{GEMMA_QUOTE}{value}{GEMMA_QUOTE}"
    if isinstance(value, list):
        return "[" + ",".join(gemma_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{gemma_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def gemma4(name: str, arguments: dict[str, Any], preamble: str) -> list[Segment]:
    """Gemma 4's call block in content, then the ``<|tool_response>`` token it ends its turn
    with, which the server leaves in the text."""
    call = f"<|tool_call>call:{name}{gemma_value(arguments)}<tool_call|>"
    return [(CONTENT, f"{preamble}{call}<|tool_response>")]


def glm47(name: str, arguments: dict[str, Any], preamble: str) -> list[Segment]:
    """GLM-4.7's calls on one line after its name, inside its thinking, which the server
    sends in both reasoning fields (vLLM's, during their rename)."""
    args = "".join(
        f"<arg_key>{key}</arg_key><arg_value>{raw(value)}</arg_value>"
        for key, value in arguments.items()
    )
    return [(("reasoning", "reasoning_content"), f"{THOUGHT}<tool_call>{name}{args}</tool_call>")]


def minimax_value(value: Any) -> str:
    """MiniMax M3's value: text as it is, arrays as ``<item>`` elements, objects as elements
    named after their keys, each tag after the namespace token."""
    if isinstance(value, list):
        return "".join(f"{MINIMAX}<item>{minimax_value(v)}{MINIMAX}</item>" for v in value)
    if isinstance(value, dict):
        return "".join(f"{MINIMAX}<{k}>{minimax_value(v)}{MINIMAX}</{k}>" for k, v in value.items())
    return raw(value)


def minimax_m3(name: str, arguments: dict[str, Any], preamble: str) -> list[Segment]:
    """MiniMax M3 keeps its ``<mm:think>`` block in the content, then says the preamble, then
    writes its namespaced block."""
    params = minimax_value(arguments)
    return [
        (
            CONTENT,
            f"<mm:think>{THOUGHT}\n</mm:think>\n\n{preamble}{MINIMAX}<tool_call>\n"
            f'{MINIMAX}<invoke name="{name}">{params}{MINIMAX}</invoke>\n{MINIMAX}</tool_call>',
        )
    ]


#: Each markup format's writer, in the order the runs take them.
WRITERS: dict[str, Callable[[str, dict[str, Any], str], list[Segment]]] = {
    "kimi": kimi_k2,
    "qwen3_coder": qwen3_coder,
    "hermes": hermes,
    "hy3": hy3,
    "deepseek_v4": deepseek_v4,
    "deepseek_v32": deepseek_v32,
    "kimi_k3": kimi_k3,
    "gemma4": gemma4,
    "glm47": glm47,
    "minimax_m3": minimax_m3,
}
#: The formats a scripted model writes its call in (every runner runs each).
FORMATS = tuple(WRITERS)
