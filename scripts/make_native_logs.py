"""Write the native ``tool_calls`` recordings in sse_logs/ (``openai-*``): gateway quirks.

Each scenario states the upstream chunks as a gateway sent them (shapes taken from real
captures: llama-server, OpenRouter, LiteLLM, Kilo, vLLM) and, written out by hand and
independently of the code, what a client must end up with in the default streaming mode
(``expected``) and with ``mode="buffered"`` (``expected_buffered``). An ``id`` of ``null`` in
an expectation means "a generated ``call_…`` id". Run: python scripts/make_native_logs.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "sse_logs"
CREATED = 1772240000

TOOLS = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
        "required": ["city"],
    },
    "get_time": {"type": "object", "properties": {}},
    "write_file": {
        "type": "object",
        "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["file_path", "content"],
    },
    "read_file": {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
    "list_dir": {"type": "object", "properties": {"path": {"type": "string"}}},
    "search_files": {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "regex": {"type": "string"},
            "file_pattern": {"type": "string"},
        },
        "required": ["path", "regex"],
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


def req(model: str, *tool_names: str, stream: bool = True) -> dict[str, Any]:
    return {
        "model": model,
        "stream": stream,
        "messages": [{"role": "user", "content": "..."}],
        "tools": tools(*tool_names),
    }


def event(body: dict[str, Any]) -> str:
    return "data: " + json.dumps(body, separators=(",", ":"), ensure_ascii=False) + "\n\n"


def chunk(cid: str, model: str, delta: dict[str, Any], finish: str | None = None) -> str:
    return event(
        {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


def calls(cid: str, model: str, *entries: Any) -> str:
    """One chunk whose delta carries exactly these ``tool_calls`` entries."""
    return chunk(cid, model, {"tool_calls": list(entries)})


def finish(
    cid: str,
    model: str,
    reason: str,
    prompt: int = 310,
    completion: int = 42,
    cached: int | None = None,
) -> str:
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if cached is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    return (
        chunk(cid, model, {}, reason)
        + event(
            {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": CREATED,
                "model": model,
                "choices": [],
                "usage": usage,
            }
        )
        + "data: [DONE]\n\n"
    )


def call(call_id: str | None, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def result(
    content: str | None,
    tool_calls: list[dict[str, Any]],
    finish_reason: str = "tool_calls",
    reasoning: str | None = None,
) -> dict[str, Any]:
    return {
        "content": content,
        "reasoning": reasoning,
        "tool_calls": tool_calls,
        "finish_reason": finish_reason,
    }


def write(
    name: str,
    description: str,
    request: dict[str, Any],
    body: str,
    expected: dict[str, Any],
    expected_buffered: dict[str, Any],
    content_type: str = "text/event-stream",
) -> None:
    OUT.mkdir(exist_ok=True)
    (OUT / f"{name}.log").write_bytes(body.encode())
    meta: dict[str, Any] = {
        "description": description,
        "request": request,
        "response": {"status": 200, "headers": {"content-type": content_type}},
        "expected": expected,
        "expected_buffered": expected_buffered,
    }
    if any(not _is_object(c["arguments"]) for c in expected["tool_calls"]):
        # Streaming forwards these arguments as the model wrote them (not JSON objects).
        meta["malformed_arguments"] = True
    (OUT / f"{name}.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")


def _is_object(arguments: str) -> bool:
    try:
        return isinstance(json.loads(arguments), dict)
    except ValueError:
        return False


def role(cid: str, model: str) -> str:
    return chunk(cid, model, {"role": "assistant", "content": ""})


# --- A canonical OpenAI stream: the baseline every quirk is measured against. ---------------
M, C = "gpt-4.1-mini", "chatcmpl-BqZ3k1Xn7TfS0aLr9v2W"
body = (
    role(C, M)
    + calls(
        C,
        M,
        {
            "index": 0,
            "id": "call_Wq1d8ZpX3nR7yT2bKv9Lm0aS",
            "type": "function",
            "function": {"name": "get_weather", "arguments": ""},
        },
    )
    + "".join(
        calls(C, M, {"index": 0, "function": {"arguments": a}})
        for a in ['{"', "city", '":"', "Paris", '"}']
    )
    + finish(C, M, "tool_calls")
)
both = result(None, [call("call_Wq1d8ZpX3nR7yT2bKv9Lm0aS", "get_weather", '{"city":"Paris"}')])
write(
    "openai-canonical",
    "A canonical OpenAI tool-call stream (the baseline).",
    req(M, "get_weather"),
    body,
    both,
    both,
)

# --- Index reused: every parallel call arrives whole at index 0 (Gemini via a gateway). -----
M, C = "google/gemini-2.5-flash", "gen-1772240000-kQ2vP8sX"
body = (
    role(C, M)
    + chunk(C, M, {"content": "I'll check both cities and the time."})
    + calls(
        C,
        M,
        {
            "index": 0,
            "id": "tool_0_get_weather_pE3k",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
        },
    )
    + calls(
        C,
        M,
        {
            "index": 0,
            "id": "tool_1_get_weather_Zr8q",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city":"Tokyo"}'},
        },
    )
    + calls(
        C,
        M,
        {
            "index": 0,
            "id": "tool_2_get_time_Lm4w",
            "type": "function",
            "function": {"name": "get_time", "arguments": "{}"},
        },
    )
    + finish(C, M, "tool_calls")
)
both = result(
    "I'll check both cities and the time.",
    [
        call("tool_0_get_weather_pE3k", "get_weather", '{"city":"Paris"}'),
        call("tool_1_get_weather_Zr8q", "get_weather", '{"city":"Tokyo"}'),
        call("tool_2_get_time_Lm4w", "get_time", "{}"),
    ],
)
write(
    "openai-index-reuse",
    "Three parallel calls all sent at index 0, each whole in one delta (a second call to "
    "the same function included); the client needs indexes 0, 1, 2.",
    req(M, "get_weather", "get_time"),
    body,
    both,
    both,
)

# --- First index 1: the gateway counted a text block as index 0 (Anthropic via OpenRouter). --
M, C = "anthropic/claude-sonnet-4", "gen-1772240001-Hq7cN2dY"
body = (
    role(C, M)
    + chunk(C, M, {"content": "Let me look that up."})
    + calls(
        C,
        M,
        {
            "index": 1,
            "id": "toolu_01X7bqLPmRk3v9sTd4Wz2YcN",
            "type": "function",
            "function": {"name": "read_file", "arguments": ""},
        },
    )
    + calls(C, M, {"index": 1, "function": {"arguments": '{"path": "READ'}})
    + calls(C, M, {"index": 1, "function": {"arguments": 'ME.md"}'}})
    + calls(
        C,
        M,
        {
            "index": 2,
            "id": "toolu_01Fh2mQw8Lx5nJ6pVs3Ra9Tk",
            "type": "function",
            "function": {"name": "read_file", "arguments": ""},
        },
    )
    + calls(C, M, {"index": 2, "function": {"arguments": '{"path": "setup.cfg"}'}})
    + finish(C, M, "tool_calls")
)
both = result(
    "Let me look that up.",
    [
        call("toolu_01X7bqLPmRk3v9sTd4Wz2YcN", "read_file", '{"path": "README.md"}'),
        call("toolu_01Fh2mQw8Lx5nJ6pVs3Ra9Tk", "read_file", '{"path": "setup.cfg"}'),
    ],
)
write(
    "openai-first-index-one",
    "Tool-call indexes start at 1 (a text block took 0); the client needs 0 and 1.",
    req(M, "read_file"),
    body,
    both,
    both,
)

# --- Continuations without an index, or with index null (and other nulls), Java gateway. ----
M, C = "command-r-plus", "chatcmpl-9c1e7f0a2b"
nulls = {"id": None, "type": None, "index": None}
body = (
    role(C, M)
    + calls(
        C,
        M,
        {
            "index": 0,
            "id": "call_7f3a9e",
            "type": "function",
            "function": {"name": "write_file", "arguments": ""},
        },
    )
    + calls(C, M, {"function": {"arguments": '{"file_path": '}})
    + calls(C, M, {**nulls, "function": {"name": None, "arguments": '"notes.md", '}})
    + calls(C, M, {**nulls, "function": {"name": None, "arguments": '"content": "hi"}'}})
    + finish(C, M, "stop")
)
both = result(
    None, [call("call_7f3a9e", "write_file", '{"file_path": "notes.md", "content": "hi"}')]
)
write(
    "openai-indexless",
    "Argument continuations with no index key, and with index/id/type/name all null; "
    "finish_reason stop although a call was made.",
    req(M, "write_file"),
    body,
    both,
    both,
)

# --- Two entries for the same index in one chunk: a name entry, then an arguments entry. ----
M, C = "openrouter/auto", "gen-1772240002-Tt5uB1eA"
body = (
    role(C, M)
    + calls(
        C,
        M,
        {"index": 0, "id": "call_abc123", "type": "function", "function": {"name": "search_files"}},
        {"index": 0, "function": {"arguments": '{"path":".","regex":"TODO"}'}},
    )
    + calls(
        C,
        M,
        {"index": 1, "id": "call_def456", "type": "function", "function": {"name": "read_file"}},
        {"index": 1, "function": {"arguments": '{"path":"a.py"}'}},
    )
    + finish(C, M, "stop")
)
both = result(
    None,
    [
        call("call_abc123", "search_files", '{"path":".","regex":"TODO"}'),
        call("call_def456", "read_file", '{"path":"a.py"}'),
    ],
)
write(
    "openai-same-index-twice",
    "Each chunk carries two entries for one index: the name entry, then the arguments "
    "entry; finish_reason stop.",
    req(M, "search_files", "read_file"),
    body,
    both,
    both,
)

# --- Seed 004: the id changes on every chunk of one call (llama-server). --------------------
M, C = "gemma3-4b", "chatcmpl-eVx0q7d1a"
pieces = [
    ("eL537Ly3Qm0Zp8VdNc2K", '{"'),
    ("call_0", "file_path"),
    ("call_1", '":"'),
    ("call_2", "test.txt"),
    ("call_3", '","'),
    ("call_4", "content"),
    ("call_5", '":"'),
    ("call_6", "Hello World"),
    ("call_7", '"}'),
]
body = role(C, M)
for n, (cid, args) in enumerate(pieces):
    function: dict[str, Any] = {"arguments": args}
    if n == 0:
        function = {"name": "write_file", "arguments": args}
    body += calls(C, M, {"index": 0, "id": cid, "type": "function", "function": function})
body += finish(C, M, "tool_calls")
both = result(
    None,
    [
        call(
            "eL537Ly3Qm0Zp8VdNc2K", "write_file", '{"file_path":"test.txt","content":"Hello World"}'
        )
    ],
)
write(
    "openai-changing-ids",
    "Seed 004: a different id on every chunk of one call (eL537…, call_0, call_1, …); "
    "one call with the first id.",
    req(M, "write_file"),
    body,
    both,
    both,
)

# --- The id and the name repeated on every delta (older Ollama-style servers). --------------
M, C = "phi4-mini", "chatcmpl-412"
body = role(C, M)
for args in ['{"city": "', "Ber", 'lin"}']:
    body += calls(
        C,
        M,
        {
            "index": 0,
            "id": "call_rep1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": args},
        },
    )
for args in ['{"city": "', 'Oslo"}']:
    body += calls(
        C,
        M,
        {
            "index": 1,
            "id": "call_rep2",
            "type": "function",
            "function": {"name": "get_weather", "arguments": args},
        },
    )
body += finish(C, M, "tool_calls")
both = result(
    None,
    [
        call("call_rep1", "get_weather", '{"city": "Berlin"}'),
        call("call_rep2", "get_weather", '{"city": "Oslo"}'),
    ],
)
write(
    "openai-repeated-id-name",
    "id, type and name repeated on every delta of each call; two calls.",
    req(M, "get_weather"),
    body,
    both,
    both,
)

# --- The id arrives after the name; another call never gets an id. --------------------------
M, C = "hermes-proxy-8b", "chatcmpl-late-0c9"
body = (
    role(C, M)
    + calls(
        C, M, {"index": 0, "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    )
    + calls(C, M, {"index": 0, "id": "call_late42", "function": {"arguments": '{"city"'}})
    + calls(C, M, {"index": 0, "function": {"arguments": ': "Lima"}'}})
    + calls(
        C,
        M,
        {
            "index": 1,
            "id": "",
            "type": "function",
            "function": {"name": "get_time", "arguments": ""},
        },
    )
    + calls(C, M, {"index": 1, "id": "", "function": {"arguments": '{"tz": "UTC"}'}})
    + finish(C, M, "tool_calls")
)
both = result(
    None,
    [
        call("call_late42", "get_weather", '{"city": "Lima"}'),
        call(None, "get_time", '{"tz": "UTC"}'),
    ],
)
write(
    "openai-late-id",
    "The first call's id arrives with its first argument fragment, after the name; the "
    "second call's id is always empty, so one is generated.",
    req(M, "get_weather", "get_time"),
    body,
    both,
    both,
)

# --- arguments as an object, as null, as "" (Kilo-compatible gateways). ---------------------
M, C = "kilo/gateway-large", "chatcmpl-kilo-77a"
body = (
    role(C, M)
    + calls(
        C,
        M,
        {
            "index": 0,
            "id": "call_obj1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": None},
        },
    )
    + calls(C, M, {"index": 0, "function": {"arguments": {"city": "Paris", "unit": "c"}}})
    + calls(
        C,
        M,
        {
            "index": 1,
            "id": "call_empty2",
            "type": "function",
            "function": {"name": "get_time", "arguments": ""},
        },
    )
    + calls(
        C,
        M,
        {
            "index": 2,
            "id": "call_obj3",
            "type": "function",
            "function": {"name": "get_time", "arguments": {}},
        },
    )
    + finish(C, M, "tool_calls")
)
both = result(
    None,
    [
        call("call_obj1", "get_weather", '{"city":"Paris","unit":"c"}'),
        call("call_empty2", "get_time", "{}"),
        call("call_obj3", "get_time", "{}"),
    ],
)
write(
    "openai-arguments-shapes",
    'arguments null then an already-parsed object; an explicit "" for a call that takes '
    "none; an empty object.",
    req(M, "get_weather", "get_time"),
    body,
    both,
    both,
)

# --- Kilo shorthand: name/arguments on the entry itself, mixed with the normal form. ---------
M, C = "kilo/gateway-small", "chatcmpl-kilo-91b"
body = (
    role(C, M)
    + chunk(C, M, {"content": "Reading both files."})
    + calls(
        C,
        M,
        {
            "index": 0,
            "id": "call_k1",
            "type": "function",
            "name": "read_file",
            "arguments": '{"path": "a.txt"}',
        },
        {
            "index": 1,
            "id": "call_k2",
            "type": "function",
            "function": {"name": "read_file", "arguments": {"path": "b.txt"}},
        },
    )
    + finish(C, M, "tool_calls")
)
both = result(
    "Reading both files.",
    [
        call("call_k1", "read_file", '{"path": "a.txt"}'),
        call("call_k2", "read_file", '{"path":"b.txt"}'),
    ],
)
write(
    "openai-kilo-shorthand",
    "Kilo shorthand (top-level name/arguments) and the function form with object "
    "arguments, mixed in one tool_calls array.",
    req(M, "read_file"),
    body,
    both,
    both,
)

# --- Interleaved parallel calls: fragments of two calls alternate. --------------------------
M, C = "grok-4-fast", "chatcmpl-il-5e2"
body = (
    role(C, M)
    + calls(
        C,
        M,
        {
            "index": 0,
            "id": "call_il0",
            "type": "function",
            "function": {"name": "get_weather", "arguments": ""},
        },
    )
    + calls(
        C,
        M,
        {
            "index": 1,
            "id": "call_il1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": ""},
        },
    )
    + calls(C, M, {"index": 0, "function": {"arguments": '{"city": '}})
    + calls(C, M, {"index": 1, "function": {"arguments": '{"city": '}})
    + calls(
        C,
        M,
        {"index": 0, "function": {"arguments": '"Oslo"}'}},
        {"index": 1, "function": {"arguments": '"Rome"}'}},
    )
    + finish(C, M, "tool_calls")
)
both = result(
    None,
    [
        call("call_il0", "get_weather", '{"city": "Oslo"}'),
        call("call_il1", "get_weather", '{"city": "Rome"}'),
    ],
)
write(
    "openai-interleaved",
    "Two parallel calls whose argument fragments alternate, the last chunk carrying both.",
    req(M, "get_weather"),
    body,
    both,
    both,
)

# --- vLLM parsed the first Kimi call natively; a second section leaked into content. --------
M, C = "moonshotai/Kimi-K2-Instruct-0905", "chatcmpl-leak-3d8f"
body = (
    role(C, M)
    + calls(
        C,
        M,
        {
            "index": 0,
            "id": "functions.get_weather:0",
            "type": "function",
            "function": {"name": "get_weather", "arguments": ""},
        },
    )
    + calls(C, M, {"index": 0, "function": {"arguments": '{"city": "Beijing"}'}})
    + chunk(
        C,
        M,
        {
            "content": "<|tool_calls_section_begin|>"
            "<|tool_call_begin|>functions.get_weather:1"
            '<|tool_call_argument_begin|>{"city": "Shanghai"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        },
    )
    + finish(C, M, "stop")
)
both = result(
    None,
    [
        call("functions.get_weather:0", "get_weather", '{"city": "Beijing"}'),
        call("functions.get_weather:1", "get_weather", '{"city": "Shanghai"}'),
    ],
)
write(
    "openai-native-then-markup",
    "vLLM returned the first Kimi call as native tool_calls and leaked a second section "
    "into content as markup: one numbering across both sources; finish_reason stop.",
    req(M, "get_weather"),
    body,
    both,
    both,
)

# --- Malformed calls: where streaming and buffered mode differ. -----------------------------
M, C = "local/vllm-served", "chatcmpl-bad-6a1"
broken = '{"file_path": "a.txt", "content": "unterminated'
body = (
    role(C, M)
    + calls(
        C,
        M,
        {
            "index": 0,
            "id": "call_bad0",
            "type": "function",
            "function": {"name": "write_file", "arguments": broken},
        },
    )
    + calls(
        C,
        M,
        {
            "index": 1,
            "id": "call_noname",
            "type": "function",
            "function": {"arguments": '{"x": 1}'},
        },
    )
    + calls(
        C,
        M,
        {"index": 2, "id": "call_noargs", "type": "function", "function": {"name": "get_time"}},
    )
    + calls(
        C,
        M,
        {
            "index": 3,
            "id": "call_str",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '"Oslo"'},
        },
    )
    + calls(
        C,
        M,
        {
            "index": 4,
            "id": "call_ok",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
        },
    )
    + finish(C, M, "tool_calls")
)
write(
    "openai-malformed",
    "A call with broken JSON, a call without a name, a call that never sends arguments, "
    "arguments that are JSON but not an object, and a good call. Streaming forwards what "
    "the model wrote (the nameless call is dropped, the argument-less one gets {}); "
    "buffered mode wraps what is not an object and drops calls without name or arguments.",
    req(M, "write_file", "get_time", "get_weather"),
    body,
    result(
        None,
        [
            call("call_bad0", "write_file", broken),
            call("call_noargs", "get_time", "{}"),
            call("call_str", "get_weather", '"Oslo"'),
            call("call_ok", "get_weather", '{"city":"Oslo"}'),
        ],
    ),
    result(
        None,
        [
            call(
                "call_bad0",
                "write_file",
                '{"input":"{\\"file_path\\": \\"a.txt\\", \\"content\\": \\"unterminated"}',
            ),
            call("call_str", "get_weather", '{"input":"\\"Oslo\\""}'),
            call("call_ok", "get_weather", '{"city":"Oslo"}'),
        ],
    ),
)


# --- Non-streaming responses. ---------------------------------------------------------------
# --- vLLM serving DeepSeek with its own parsers: reasoning, one native call, cached prompt. --
M, C = "deepseek-ai/DeepSeek-V3.1", "chatcmpl-3f1e0d9c8b7a6954"
thinking = ["The user asks about ", "Paris weather. ", "I should call get_weather."]
pieces = ['{"', "city", '": "', "Paris", '", "', "unit", '": "', "c", '"}']
body = (
    role(C, M)
    + "".join(chunk(C, M, {"reasoning_content": t}) for t in thinking)
    + calls(
        C,
        M,
        {
            "index": 0,
            "id": "chatcmpl-tool-5a6b7c8d9e0f4a1b",
            "type": "function",
            "function": {"name": "get_weather", "arguments": ""},
        },
    )
    + "".join(calls(C, M, {"index": 0, "function": {"arguments": a}}) for a in pieces)
    + finish(C, M, "tool_calls", prompt=812, completion=41, cached=768)
)
both = result(
    "",
    [call("chatcmpl-tool-5a6b7c8d9e0f4a1b", "get_weather", "".join(pieces))],
    reasoning="".join(thinking),
)
write(
    "openai-deepseek-reasoning-call",
    "vLLM serving DeepSeek-V3.1 with its reasoning and tool-call parsers: reasoning_content, "
    "then one native call whose arguments stream in small pieces; cached prompt tokens.",
    req(M, "get_weather"),
    body,
    both,
    both,
)

# --- A gateway's parallel calls one after the other, text first, usage last. ----------------
M, C = "gpt-4.1-mini", "chatcmpl-BxQ2m9rT5vW8yZ1a"
text = ["I'll look ", "at the directory ", "and read the config."]
first, second = ['{"path":', '"./"}'], ['{"path":"', "config/app.toml", '"}']
body = (
    chunk(C, M, {"role": "assistant", "content": "", "refusal": None})
    + "".join(chunk(C, M, {"content": t}) for t in text)
    + calls(
        C,
        M,
        {
            "index": 0,
            "id": "call_Qm3vX8pL2nR7tY4w",
            "type": "function",
            "function": {"name": "list_dir", "arguments": ""},
        },
    )
    + "".join(calls(C, M, {"index": 0, "function": {"arguments": a}}) for a in first)
    + calls(
        C,
        M,
        {
            "index": 1,
            "id": "call_Hk9sD1fG6jB3cV5z",
            "type": "function",
            "function": {"name": "read_file", "arguments": ""},
        },
    )
    + "".join(calls(C, M, {"index": 1, "function": {"arguments": a}}) for a in second)
    + finish(C, M, "tool_calls", prompt=356, completion=58, cached=0)
)
both = result(
    "".join(text),
    [
        call("call_Qm3vX8pL2nR7tY4w", "list_dir", "".join(first)),
        call("call_Hk9sD1fG6jB3cV5z", "read_file", "".join(second)),
    ],
)
write(
    "openai-gateway-parallel-calls",
    "An OpenAI-compatible gateway with native parallel tool calls: text, then two calls one "
    "after the other (index 0 then 1), the usage chunk last.",
    req(M, "list_dir", "read_file"),
    body,
    both,
    both,
)


def completion(cid: str, model: str, message: dict[str, Any], reason: str) -> str:
    return json.dumps(
        {
            "id": cid,
            "object": "chat.completion",
            "created": CREATED,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": {"prompt_tokens": 200, "completion_tokens": 40, "total_tokens": 240},
        }
    )


M = "kilo/gateway-large"
message = {
    "role": "assistant",
    "content": "",
    "tool_calls": [
        {
            "index": 0,
            "id": "call_abc123",
            "type": "function",
            "function": {
                "name": "search_files",
                "arguments": '{"path":".","regex":".*","file_pattern":"*.*"}',
            },
        },
        {
            "index": 0,
            "id": "",
            "type": "function",
            "function": {"name": "get_time", "arguments": ""},
        },
        {"index": 0, "type": "function", "name": "get_weather", "arguments": {"city": "Paris"}},
    ],
}
both = result(
    None,
    [
        call("call_abc123", "search_files", '{"path":".","regex":".*","file_pattern":"*.*"}'),
        call(None, "get_time", "{}"),
        call(None, "get_weather", '{"city":"Paris"}'),
    ],
)
write(
    "openai-nonstream-quirks",
    "Non-streaming: every call says index 0 (as a gateway's documented example does), "
    'an empty id, "" arguments, Kilo shorthand with object arguments; finish_reason stop.',
    req(M, "search_files", "get_time", "get_weather", stream=False),
    completion("chatcmpl-ns-1a", M, message, "stop"),
    both,
    both,
    content_type="application/json",
)

message = {
    "role": "assistant",
    "content": "Working on it.",
    "tool_calls": [
        {
            "id": "call_n1",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "a.txt"'},
        },
        {"id": "call_n2", "type": "function", "function": {"arguments": '{"path": "b.txt"}'}},
        {"id": "call_n3", "type": "function", "function": {"name": "get_time", "arguments": None}},
        {
            "id": "call_n4",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "c.txt"}'},
        },
    ],
}
write(
    "openai-nonstream-malformed",
    "Non-streaming: broken JSON, a nameless call, null arguments and a good call.",
    req(M, "read_file", "get_time", stream=False),
    completion("chatcmpl-ns-2b", M, message, "tool_calls"),
    result(
        "Working on it.",
        [
            call("call_n1", "read_file", '{"path": "a.txt"'),
            call("call_n3", "get_time", "{}"),
            call("call_n4", "read_file", '{"path": "c.txt"}'),
        ],
    ),
    result(
        "Working on it.",
        [
            call("call_n1", "read_file", '{"input":"{\\"path\\": \\"a.txt\\""}'),
            call("call_n4", "read_file", '{"path": "c.txt"}'),
        ],
    ),
    content_type="application/json",
)

print("wrote", len(list(OUT.glob("openai-*.log"))), "recordings to", OUT)
