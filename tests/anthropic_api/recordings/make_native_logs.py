"""Write the native ``tool_calls`` recordings beside this script (upstreams whose server already
parsed the calls: vLLM with a tool-call parser, DeepSeek's API, OpenAI-style gateways).

They are the "native upstream" cases of the Anthropic front's end-to-end tests, in the sse_logs/
format, replayed through ToolCallMiddleware like the bundled recordings. They live here rather
than in sse_logs/ because the core's suite re-cuts every non-Kimi sse_log as markup text.
Run: python tests/anthropic_api/recordings/make_native_logs.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent
CREATED = 1772233656

SCHEMAS = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
        "required": ["city"],
    },
    "read_file": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["path"],
    },
    "list_dir": {"type": "object", "properties": {"path": {"type": "string"}}},
}


def tools(*names: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": n, "description": f"{n} tool", "parameters": SCHEMAS[n]},
        }
        for n in names
    ]


def event(cid: str, model: str, choices: list[Any], **extra: Any) -> str:
    body = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "choices": choices,
        **extra,
    }
    return "data: " + json.dumps(body, separators=(",", ":"), ensure_ascii=False) + "\n\n"


def delta(cid: str, model: str, d: dict[str, Any], finish: str | None = None) -> str:
    return event(cid, model, [{"index": 0, "delta": d, "logprobs": None, "finish_reason": finish}])


def call_start(index: int, call_id: str, name: str) -> dict[str, Any]:
    return {
        "tool_calls": [
            {
                "index": index,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
        ]
    }


def call_args(index: int, fragment: str) -> dict[str, Any]:
    return {"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}


def write(
    name: str, description: str, request: dict[str, Any], body: str, expected: dict[str, Any]
) -> None:
    (OUT / f"{name}.log").write_text(body, encoding="utf-8")
    meta = {
        "description": description,
        "request": request,
        "response": {"status": 200, "headers": {"content-type": "text/event-stream"}},
        "expected": expected,
    }
    (OUT / f"{name}.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")


def deepseek_reasoning_call() -> None:
    model, cid = "deepseek-ai/DeepSeek-V3.1", "chatcmpl-3f1e0d9c8b7a6954"
    reasoning = ["The user asks about ", "Paris weather. ", "I should call get_weather."]
    args = ['{"', "city", '": "', "Paris", '", "', "unit", '": "', "c", '"}']
    out = [delta(cid, model, {"role": "assistant", "content": ""})]
    out += [delta(cid, model, {"reasoning_content": r}) for r in reasoning]
    out.append(delta(cid, model, call_start(0, "chatcmpl-tool-5a6b7c8d9e0f4a1b", "get_weather")))
    out += [delta(cid, model, call_args(0, a)) for a in args]
    out.append(delta(cid, model, {}, "tool_calls"))
    out.append(
        event(
            cid,
            model,
            [],
            usage={
                "prompt_tokens": 812,
                "completion_tokens": 41,
                "total_tokens": 853,
                "prompt_tokens_details": {"cached_tokens": 768},
            },
        )
    )
    out.append("data: [DONE]\n\n")
    write(
        "native-deepseek-reasoning-call",
        "vLLM serving DeepSeek-V3.1 with its reasoning and tool-call parsers: reasoning_content, "
        "then one native call whose arguments stream in small pieces; cached prompt tokens.",
        {
            "model": model,
            "stream": True,
            "messages": [{"role": "user", "content": "..."}],
            "tools": tools("get_weather"),
        },
        "".join(out),
        {
            "content": "",
            "reasoning": "".join(reasoning),
            "tool_calls": [
                {
                    "id": "chatcmpl-tool-5a6b7c8d9e0f4a1b",
                    "name": "get_weather",
                    "arguments": "".join(args),
                }
            ],
            "finish_reason": "tool_calls",
        },
    )


def gateway_parallel_calls() -> None:
    model, cid = "gpt-4.1-mini", "chatcmpl-BxQ2m9rT5vW8yZ1a"
    text = ["I'll look ", "at the directory ", "and read the config."]
    first = ['{"path":', '"./"}']
    second = ['{"path":"', "config/app.toml", '","limit":', "200}"]
    out = [delta(cid, model, {"role": "assistant", "content": "", "refusal": None})]
    out += [delta(cid, model, {"content": t}) for t in text]
    out.append(delta(cid, model, call_start(0, "call_Qm3vX8pL2nR7tY4w", "list_dir")))
    out += [delta(cid, model, call_args(0, a)) for a in first]
    out.append(delta(cid, model, call_start(1, "call_Hk9sD1fG6jB3cV5z", "read_file")))
    out += [delta(cid, model, call_args(1, a)) for a in second]
    out.append(delta(cid, model, {}, "tool_calls"))
    out.append(
        event(
            cid,
            model,
            [],
            usage={
                "prompt_tokens": 356,
                "completion_tokens": 58,
                "total_tokens": 414,
                "prompt_tokens_details": {"cached_tokens": 0},
            },
        )
    )
    out.append("data: [DONE]\n\n")
    write(
        "native-gateway-parallel-calls",
        "An OpenAI-compatible gateway with native parallel tool calls: text, then two calls "
        "one after the other (index 0 then 1), the usage chunk last.",
        {
            "model": model,
            "stream": True,
            "messages": [{"role": "user", "content": "..."}],
            "tools": tools("list_dir", "read_file"),
        },
        "".join(out),
        {
            "content": "".join(text),
            "reasoning": None,
            "tool_calls": [
                {"id": "call_Qm3vX8pL2nR7tY4w", "name": "list_dir", "arguments": "".join(first)},
                {"id": "call_Hk9sD1fG6jB3cV5z", "name": "read_file", "arguments": "".join(second)},
            ],
            "finish_reason": "tool_calls",
        },
    )


if __name__ == "__main__":
    deepseek_reasoning_call()
    gateway_parallel_calls()
