"""Write the Kimi K2 recordings in sse_logs/ (streams modelled on real vLLM/Chutes captures).

Each scenario states its upstream deltas and, independently, the result a client must see.
Run: python scripts/make_kimi_logs.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "sse_logs"
CREATED = 1772233656

TOOLS = {
    "bash": {
        "type": "object",
        "properties": {"command": {"type": "string"}},
        "required": ["command"],
    },
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
    "get_time": {"type": "object", "properties": {}},
    "write_file": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
}


def tools(*names: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": n, "description": f"{n} tool", "parameters": TOOLS[n]},
        }
        for n in names
    ]


def chunk(cid: str, model: str, delta: dict[str, Any], finish: str | None = None) -> str:
    body = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    return "data: " + json.dumps(body, separators=(",", ":"), ensure_ascii=False) + "\n\n"


def usage(cid: str, model: str, prompt: int, completion: int) -> str:
    body = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }
    return "data: " + json.dumps(body, separators=(",", ":")) + "\n\n"


def stream(
    cid: str,
    model: str,
    field: str | tuple[str, ...],
    pieces: list[str],
    finish: str = "stop",
    content_pieces: list[str] = (),
    prompt: int = 43206,
) -> str:
    fields = (field,) if isinstance(field, str) else field
    out = [chunk(cid, model, {"role": "assistant", "content": ""})]
    for p in pieces:
        out.append(chunk(cid, model, dict.fromkeys(fields, p)))
    for p in content_pieces:
        out.append(chunk(cid, model, {"content": p}))
    out.append(chunk(cid, model, dict.fromkeys(fields, ""), finish))
    out.append(usage(cid, model, prompt, len(pieces) + len(content_pieces)))
    out.append("data: [DONE]\n\n")
    return "".join(out)


def write(
    name: str,
    description: str,
    request: dict[str, Any],
    body: str | bytes,
    expected: dict[str, Any],
    status: int = 200,
    content_type: str = "text/event-stream",
) -> None:
    OUT.mkdir(exist_ok=True)
    raw = body.encode() if isinstance(body, str) else body
    (OUT / f"{name}.log").write_bytes(raw)
    meta = {
        "description": description,
        "request": request,
        "response": {"status": status, "headers": {"content-type": content_type}},
        "expected": expected,
    }
    (OUT / f"{name}.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")


def req(model: str, *tool_names: str, stream_: bool = True) -> dict[str, Any]:
    return {
        "model": model,
        "stream": stream_,
        "messages": [{"role": "user", "content": "..."}],
        "tools": tools(*tool_names),
    }


K25 = "moonshotai/Kimi-K2.5-TEE"

# Seed 000: thinking text, then a section with two bash calls, all in reasoning AND
# reasoning_content, split the way the tokenizer split it.
thinking = ["The user wants", " to find", " the asm", " headers.", " Let me", " look", "."]
call1 = [
    " <|tool_calls_section_begin|>",
    " <|tool_call_begin|>",
    " functions",
    ".b",
    "ash",
    ":",
    "15",
    " <|tool_call_argument_begin|>",
    ' {"',
    "command",
    '": ',
    ' "',
    "ls",
    ' -la /usr/include | grep asm"',
    "}",
    " <|tool_call_end|>",
]
call2 = [
    " <|tool_call_begin|>",
    "functions.bash:16",
    "<|tool_call_argument_begin|>",
    '{"command": "find /usr/include -name',
    " '*.h' -path '*asm*'",
    ' | head -20"}',
    "<|tool_call_end|>",
    " <|tool_calls_section_end|>",
]
write(
    "kimi_k2-reasoning-two-calls",
    "Seed 000: Kimi K2.5 thinking, two bash calls whose markup streams in both reasoning "
    "and reasoning_content, split across many deltas.",
    req(K25, "bash"),
    stream(
        "chatcmpl-8c3707e154df23bb",
        K25,
        ("reasoning", "reasoning_content"),
        thinking + call1 + call2,
    ),
    {
        "content": "",
        "reasoning": "".join(thinking) + " ",
        "tool_calls": [
            {
                "id": "functions.bash:15",
                "name": "bash",
                "arguments": '{"command":  "ls -la /usr/include | grep asm"}',
            },
            {
                "id": "functions.bash:16",
                "name": "bash",
                "arguments": (
                    "{\"command\": \"find /usr/include -name '*.h' -path '*asm*' | head -20\"}"
                ),
            },
        ],
        "finish_reason": "tool_calls",
    },
)

# Kimi K2-Instruct (no thinking): the calls come in content, with text before them.
K2I = "moonshotai/Kimi-K2-Instruct-0905"
content = [
    "I'll",
    " check",
    " the weather",
    " in both",
    " cities.",
    "<|tool_calls_section_begin|>",
    "\n",
    "<|tool_call_begin|>",
    "functions.get_weather:0",
    "<|tool_call_argument_begin|>",
    '{"city"',
    ': "Bei',
    'jing"}',
    "<|tool_call_end|>",
    "\n",
    "<|tool_call_begin|>",
    "functions.get_weather:1",
    "<|tool_call_argument_begin|>",
    '{"city": "Shanghai"}',
    "<|tool_call_end|>",
    "\n",
    "<|tool_calls_section_end|>",
]
write(
    "kimi_k2-content-calls",
    "Kimi K2-Instruct without thinking: text, then two parallel get_weather calls in content.",
    req(K2I, "get_weather"),
    stream("chatcmpl-a41f0c2b7d3e4f50", K2I, "content", content),
    {
        "content": "I'll check the weather in both cities.",
        "reasoning": None,
        "tool_calls": [
            {
                "id": "functions.get_weather:0",
                "name": "get_weather",
                "arguments": '{"city": "Beijing"}',
            },
            {
                "id": "functions.get_weather:1",
                "name": "get_weather",
                "arguments": '{"city": "Shanghai"}',
            },
        ],
        "finish_reason": "tool_calls",
    },
)

# Speculative decoding: text + a whole section + trailing text in ONE packet.
mixed = [
    "Sure.",
    " Checking the time now: <|tool_calls_section_begin|><|tool_call_begin|>"
    "functions.get_time:0<|tool_call_argument_begin|>{}<|tool_call_end|>"
    "<|tool_calls_section_end|> one moment",
    " please.",
]
write(
    "kimi_k2-mixed-packet",
    "Speculative decoding packs text, a complete tool section and trailing text in one delta.",
    req(K2I, "get_time", "get_weather"),
    stream("chatcmpl-5b9e2d1c0a8f7e63", K2I, "content", mixed),
    {
        "content": "Sure. Checking the time now:  one moment please.",
        "reasoning": None,
        "tool_calls": [{"id": "functions.get_time:0", "name": "get_time", "arguments": "{}"}],
        "finish_reason": "tool_calls",
    },
)

# A 200 KB write_file call streamed in ~100-character deltas.
line = 'def handler_{n}(event):\n    return {{"status": "ok", "id": {n}}}\n\n'
source = "".join(line.format(n=n) for n in range(3300))[:200_000]
escaped = json.dumps(source)[1:-1]
args = '{"path": "src/handlers.py", "content": "' + escaped + '"}'
arg_pieces = [args[i : i + 100] for i in range(0, len(args), 100)]
long_pieces = [
    "Writing",
    " the handlers",
    " file.",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "functions.write_file:0",
    "<|tool_call_argument_begin|>",
    *arg_pieces,
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
]
write(
    "kimi_k2-long-write",
    "A 200 KB write_file argument streamed in ~100-character deltas (must flow, not stall).",
    req(K2I, "write_file", "bash"),
    stream("chatcmpl-77d0c3a9b1e24f68", K2I, "content", long_pieces),
    {
        "content": "Writing the handlers file.",
        "reasoning": None,
        "tool_calls": [{"id": "functions.write_file:0", "name": "write_file", "arguments": args}],
        "finish_reason": "tool_calls",
    },
)

# max_tokens reached inside the arguments: keep what arrived, finish_reason stays length.
truncated = [
    "Let me",
    " write it.",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "functions.write_file:0",
    "<|tool_call_argument_begin|>",
    '{"path": "notes.md"',
    ', "content": "# Notes\\n\\nFirst',
]
write(
    "kimi_k2-truncated",
    "The stream ends (finish_reason length) in the middle of a call's arguments.",
    req(K2I, "write_file"),
    stream("chatcmpl-2c4e6a8b0d1f3e57", K2I, "content", truncated, finish="length"),
    {
        "content": "Let me write it.",
        "reasoning": None,
        "tool_calls": [
            {
                "id": "functions.write_file:0",
                "name": "write_file",
                "arguments": '{"path": "notes.md", "content": "# Notes\\n\\nFirst',
            }
        ],
        "finish_reason": "length",
    },
)

# A plain answer: tools offered, none called. Must leave byte-for-byte as it came.
plain = [
    "The",
    " capital",
    " of France",
    " is Paris",
    ". It is",
    " known for",
    " the Eiffel",
    " Tower",
    " <",
    "3 and",
    " the Louvre.",
]
write(
    "kimi_k2-plain-answer",
    "Tools offered but not used: the stream must pass through byte-identical.",
    req(K2I, "get_weather"),
    stream("chatcmpl-0e1d2c3b4a596877", K2I, "content", plain),
    {
        "content": "".join(plain),
        "reasoning": None,
        "tool_calls": [],
        "finish_reason": "stop",
        "byte_identical": True,
    },
)

# An upstream error body: passes through untouched.
error = {
    "error": {
        "message": "This model's maximum context length is 262144 tokens. However, "
        "you requested 270001 tokens.",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }
}
write(
    "kimi_k2-upstream-error",
    "The upstream rejects the request (HTTP 400 JSON error): passed through untouched.",
    req(K2I, "bash"),
    json.dumps(error),
    {"status": 400, "byte_identical": True},
    status=400,
    content_type="application/json",
)

# Thinking model that opens the section in reasoning and continues it in content, with the
# singular marker variants and an id without the functions. prefix.
split_reasoning = [
    "I should",
    " check",
    " the time.",
    "<|tool_call_section_begin|>",
    "<|tool_call_begin|>",
    "get_time:2",
    "<|tool_call_argument_begin|>",
]
split_content = [
    '{"timezone": "UTC"}',
    "<|tool_call_end|>",
    "<|tool_call_begin|>",
    "call_7",
    "<|tool_call_argument_begin|>",
    '{"city": "Paris"}',
    "<|tool_call_end|>",
    "<|tool_call_section_end|>",
    "Done.",
]
write(
    "kimi_k2-split-fields",
    "The section opens in reasoning_content and continues in content; singular section "
    "markers; NAME:N id; a client-style id (call_7) whose name comes from the tools.",
    req("moonshotai/Kimi-K2-Thinking", "get_time", "get_weather"),
    stream(
        "chatcmpl-6f5e4d3c2b1a0998",
        "moonshotai/Kimi-K2-Thinking",
        "reasoning_content",
        split_reasoning,
        content_pieces=split_content,
    ),
    {
        "content": "Done.",
        "reasoning": "I should check the time.",
        "tool_calls": [
            {"id": "get_time:2", "name": "get_time", "arguments": '{"timezone": "UTC"}'},
            {"id": "call_7", "name": "get_weather", "arguments": '{"city": "Paris"}'},
        ],
        "finish_reason": "tool_calls",
    },
)

# Kimi K2.5 served without a reasoning parser: the think block and the tool section both come
# in content. The block goes to reasoning_content; the whitespace after </think> is framing.
K25_RAW = "moonshotai/Kimi-K2.5"
think_content = [
    "<think>",
    "The user",
    " wants",
    " the",
    " disk",
    " usage",
    ";",
    " df",
    " shows",
    " it",
    ".",
    "</think>",
    "\n\n",
    "Checking",
    " the",
    " disks",
    ".",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "functions.bash:0",
    "<|tool_call_argument_begin|>",
    '{"command": ',
    '"df -h"}',
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
]
write(
    "kimi_k2-think-in-content",
    "Kimi K2.5 without a reasoning parser on the server: <think>...</think>, an answer and a "
    "tool section, all in content. The block becomes reasoning_content.",
    req(K25_RAW, "bash"),
    stream("chatcmpl-3d4c5b6a79880a1b", K25_RAW, "content", think_content),
    {
        "content": "Checking the disks.",
        "reasoning": "The user wants the disk usage; df shows it.",
        "tool_calls": [
            {"id": "functions.bash:0", "name": "bash", "arguments": '{"command": "df -h"}'}
        ],
        "finish_reason": "tool_calls",
    },
)

# Kimi K2-Thinking opens its tool section inside a think block it never closes (as in the
# reasoning-two-calls recording, but without a server-side split): the reasoning ends where
# the section opens; a stray </think> after the section is dropped.
K2T = "moonshotai/Kimi-K2-Thinking"
unclosed = [
    "<think>",
    " I",
    " should",
    " look",
    " at",
    " the",
    " logs",
    " first",
    ".",
    " <|tool_calls_section_begin|>",
    " <|tool_call_begin|>",
    " functions",
    ".b",
    "ash",
    ":",
    "3",
    " <|tool_call_argument_begin|>",
    ' {"',
    "command",
    '": ',
    '"tail',
    ' -n 50 build.log"',
    "}",
    " <|tool_call_end|>",
    " <|tool_calls_section_end|>",
    "</think>",
]
write(
    "kimi_k2-think-unclosed-tool-section",
    "Kimi K2-Thinking, no reasoning parser: the tool section opens inside the unclosed think "
    "block, split into many deltas; the reasoning ends there, the </think> after it is a stray.",
    req(K2T, "bash", "get_time"),
    stream("chatcmpl-9e8d7c6b5a4f3e2d", K2T, "content", unclosed),
    {
        "content": "",
        "reasoning": "I should look at the logs first. ",
        "tool_calls": [
            {
                "id": "functions.bash:3",
                "name": "bash",
                "arguments": '{"command": "tail -n 50 build.log"}',
            }
        ],
        "finish_reason": "tool_calls",
    },
)

# Non-streaming: the whole message carries the markup.
message_text = (
    "Let me list the files.<|tool_calls_section_begin|><|tool_call_begin|>"
    'functions.bash:0<|tool_call_argument_begin|>{"command": "ls"}'
    "<|tool_call_end|><|tool_calls_section_end|>"
)
completion = {
    "id": "chatcmpl-9a8b7c6d5e4f3a21",
    "object": "chat.completion",
    "created": CREATED,
    "model": K2I,
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": message_text, "tool_calls": []},
            "logprobs": None,
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
}
write(
    "kimi_k2-nonstream",
    "A non-streaming chat.completion whose content carries the tool-call markup.",
    req(K2I, "bash", stream_=False),
    json.dumps(completion),
    {
        "content": "Let me list the files.",
        "reasoning": None,
        "tool_calls": [
            {"id": "functions.bash:0", "name": "bash", "arguments": '{"command": "ls"}'}
        ],
        "finish_reason": "tool_calls",
    },
    content_type="application/json",
)
print("wrote", len(list(OUT.glob("kimi_k2-*.log"))), "recordings to", OUT)
