"""Write the sse_logs/ recordings for every non-Kimi provider format.

Each format gets a multi-call stream with text around the calls (content), a stream with the
calls inside the reasoning fields, and a non-streaming response; some get more. Deltas are cut
the way a detokenizer cuts text (special tokens whole, words and punctuation apart, a few deltas
merged as ``stream_interval>1`` servers do), so markers split across deltas. The expected result
of each is written out by hand, independently of the parsers.

Run: python scripts/make_format_logs.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "sse_logs"
CREATED = 1772240000
MISTRAL_ID = "re:[A-Za-z0-9]{9}"  # Mistral's 9-character alphanumeric ids

TOOLS: dict[str, dict[str, Any]] = {
    "get_weather": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "units": {"anyOf": [{"type": "null"}, {"type": "string", "enum": ["c", "f"]}]},
        },
        "required": ["city"],
    },
    "get_time": {"type": "object", "properties": {}},
    "bash": {
        "type": "object",
        "properties": {"command": {"type": "string"}, "timeout": {"type": ["number", "null"]}},
        "required": ["command"],
    },
    "write_file": {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "content": {"type": "string"},
            "overwrite": {"type": "boolean"},
        },
        "required": ["path", "content"],
    },
    "read": {
        "type": "object",
        "properties": {"filePath": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["filePath"],
    },
    "search": {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "filters": {"type": "object"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["query"],
    },
}

# Special tokens arrive whole; other text as word pieces, digits, spaces and punctuation.
_SPECIAL = (
    r"<\|[a-z_]+\|>|<\|[a-z_]+>|<[a-z_]+\|>|<\|\"\|>|<｜[^｜]{1,40}｜>|\[TOOL_CALLS\]|\[ARGS\]|<tool_call>|</tool_call>"
    r"|<minimax:tool_call>|</minimax:tool_call>|<arg_key>|</arg_key>|<arg_value>"
    r"|</arg_value>|｜DSML｜|\]<\]minimax\[>\[|</?mm:think>|</?seed:tool_call>|</?seed:think>"
    r"|</?(?:tool_calls?|tool_sep|arg_key|arg_value|think):opensource>|<tool_sep>"
)
_TOKEN = re.compile(_SPECIAL + r"|[ \t]?[A-Za-z]{1,7}|\d{1,3}|\n+|[ \t]+|[^\sA-Za-z\d]")


def deltas(text: str) -> list[str]:
    """``text`` as a server streams it: token pieces, every fifth delta two tokens at once."""
    tokens = _TOKEN.findall(text)
    assert "".join(tokens) == text, "the tokenizer must not lose text"
    out: list[str] = []
    i = 0
    while i < len(tokens):
        take = 2 if len(out) % 5 == 4 else 1
        out.append("".join(tokens[i : i + take]))
        i += take
    return out


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


def chunk(cid: str, model: str, delta: dict[str, Any], finish: str | None = None) -> str:
    body = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    return "data: " + json.dumps(body, separators=(",", ":"), ensure_ascii=False) + "\n\n"


def sse(
    cid: str, model: str, parts: list[tuple[tuple[str, ...], str]], finish: str = "stop"
) -> str:
    """A stream: the role chunk, ``(fields, text)`` parts cut into deltas, finish, usage."""
    out = [chunk(cid, model, {"role": "assistant", "content": ""})]
    count = 0
    for fields, text in parts:
        for piece in deltas(text):
            out.append(chunk(cid, model, dict.fromkeys(fields, piece)))
            count += 1
    out.append(chunk(cid, model, {}, finish))
    usage = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "choices": [],
        "usage": {"prompt_tokens": 812, "completion_tokens": count, "total_tokens": 812 + count},
    }
    out.append("data: " + json.dumps(usage, separators=(",", ":")) + "\n\n")
    out.append("data: [DONE]\n\n")
    return "".join(out)


def completion(cid: str, model: str, message: dict[str, Any]) -> str:
    body = {
        "id": cid,
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", **message},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 812, "completion_tokens": 90, "total_tokens": 902},
    }
    return json.dumps(body, ensure_ascii=False)


def args(**values: Any) -> str:
    """Arguments as the XML formats render them (and as the JSON formats write them here)."""
    return json.dumps(values, ensure_ascii=False)


def call(name: str, arguments: str, call_id: str | None = None) -> dict[str, Any]:
    entry = {"name": name, "arguments": arguments}
    if call_id is not None:
        entry["id"] = call_id
    return entry


def write(
    name: str,
    description: str,
    request: dict[str, Any],
    body: str,
    expected: dict[str, Any],
    provider: str | None = None,
    content_type: str = "text/event-stream",
) -> None:
    OUT.mkdir(exist_ok=True)
    (OUT / f"{name}.log").write_bytes(body.encode())
    meta: dict[str, Any] = {"description": description}
    if provider is not None:
        meta["provider"] = provider
    meta.update(
        {
            "request": request,
            "response": {"status": 200, "headers": {"content-type": content_type}},
            "expected": expected,
        }
    )
    (OUT / f"{name}.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")


def scenario(
    fmt: str,
    model: str,
    tool_names: tuple[str, ...],
    *,
    content: str,
    content_text: str,
    content_calls: list[dict[str, Any]],
    reasoning_model: str,
    thinking: str,
    reasoning_markup: str,
    reasoning_calls: list[dict[str, Any]],
    answer: str = "",
    reasoning_fields: tuple[str, ...] = ("reasoning_content",),
    reasoning_text: str | None = None,
    content_reasoning: str | None = None,
    provider: str | None = None,
    what: str = "",
) -> None:
    """The three standard recordings of a format (``content_reasoning``: the reasoning a
    client gets from the content's markup)."""
    write(
        f"{fmt}-content-calls",
        f"{what}: text, then several calls in content, then text; markers split across deltas.",
        req(model, *tool_names),
        sse(f"chatcmpl-{fmt}-c", model, [(("content",), content)]),
        {
            "content": content_text,
            "reasoning": content_reasoning,
            "tool_calls": content_calls,
            "finish_reason": "tool_calls",
        },
        provider,
    )
    parts = [(reasoning_fields, thinking + reasoning_markup)]
    if answer:
        parts.append((("content",), answer))
    write(
        f"{fmt}-reasoning-calls",
        f"{what}: the calls are written inside the thinking, in {' and '.join(reasoning_fields)}.",
        req(reasoning_model, *tool_names),
        sse(f"chatcmpl-{fmt}-r", reasoning_model, parts),
        {
            "content": answer,
            "reasoning": thinking if reasoning_text is None else reasoning_text,
            "tool_calls": reasoning_calls,
            "finish_reason": "tool_calls",
        },
        provider,
    )
    write(
        f"{fmt}-nonstream",
        f"{what}: a non-streaming chat.completion whose content carries the markup.",
        req(model, *tool_names, stream=False),
        completion(f"chatcmpl-{fmt}-n", model, {"content": content}),
        {
            "content": content_text,
            "reasoning": content_reasoning,
            "tool_calls": content_calls,
            "finish_reason": "tool_calls",
        },
        provider,
        content_type="application/json",
    )


# --- hermes: Qwen2.5 / Qwen3 JSON in <tool_call> tags -------------------------------------
scenario(
    "hermes",
    "Qwen/Qwen2.5-72B-Instruct",
    ("get_weather", "get_time"),
    what="Hermes (Qwen2.5, no server-side tool parser)",
    content="I'll check the weather in both cities.\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Tokyo", "days": 3}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_weather", "arguments": "{\\"city\\": \\"Osaka\\"}"}\n'
    '</tool_call>\n<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>',
    content_text="I'll check the weather in both cities.\n\n\n",
    content_calls=[
        call("get_weather", '{"city": "Tokyo", "days": 3}'),
        call("get_weather", '{"city": "Osaka"}'),
        call("get_time", "{}"),
    ],
    reasoning_model="Qwen/Qwen3-32B",
    thinking="The user wants the time and the weather in Paris. I should call both tools.\n\n",
    reasoning_markup='<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_weather", "parameters": {"city": "Paris", '
    '"units": "c"}}\n</tool_call>',
    reasoning_calls=[
        call("get_time", "{}"),
        call("get_weather", '{"city": "Paris", "units": "c"}'),
    ],
    # The newline between the two blocks is outside the markup: it stays the model's text.
    reasoning_text="The user wants the time and the weather in Paris. I should call both "
    "tools.\n\n\n",
)

# --- qwen3_coder: Qwen3-Coder / Qwen3.5 XML ----------------------------------------------
PY_SOURCE = (
    'import sys\n\n\ndef main() -> int:\n    print("hello, <world>")\n'
    '    return 0\n\n\nif __name__ == "__main__":\n    sys.exit(main())\n'
)
scenario(
    "qwen3_coder",
    "Qwen/Qwen3-Coder-30B-A3B-Instruct",
    ("write_file", "bash"),
    what="Qwen3-Coder XML",
    content="I'll create the script and run it.\n\n<tool_call>\n<function=write_file>\n"
    f"<parameter=path>\nsrc/hello.py\n</parameter>\n<parameter=content>\n{PY_SOURCE}\n"
    "</parameter>\n<parameter=overwrite>\ntrue\n</parameter>\n</function>\n</tool_call>\n"
    "<tool_call>\n<function=bash>\n<parameter=command>\npython src/hello.py\n"
    "</parameter>\n<parameter=timeout>\n30\n</parameter>\n</function>\n</tool_call>",
    content_text="I'll create the script and run it.\n\n\n",
    content_calls=[
        call("write_file", args(path="src/hello.py", content=PY_SOURCE, overwrite=True)),
        call("bash", args(command="python src/hello.py", timeout=30)),
    ],
    reasoning_model="Qwen/Qwen3.5-397B-A17B",
    thinking="Let me look at the repository layout first.\n",
    reasoning_markup="<tool_call>\n<function=bash>\n<parameter=command>\nls -la src\n"
    "</parameter>\n</function>\n</tool_call>",
    reasoning_calls=[call("bash", args(command="ls -la src"))],
    reasoning_fields=("reasoning", "reasoning_content"),
)
write(
    "qwen3_coder-truncated",
    "Qwen3-Coder hits max_tokens inside a parameter value: the call keeps what arrived "
    "(valid JSON), finish_reason stays length.",
    req("Qwen/Qwen3-Coder-30B-A3B-Instruct", "write_file"),
    sse(
        "chatcmpl-qwen3_coder-t",
        "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        [
            (
                ("content",),
                "Writing notes.\n<tool_call>\n<function=write_file>\n<parameter=path>\n"
                "notes.md\n</parameter>\n<parameter=content>\n# Notes\n\nFirst point",
            )
        ],
        "length",
    ),
    {
        "content": "Writing notes.\n",
        "reasoning": None,
        "tool_calls": [
            call("write_file", '{"path": "notes.md", "content": "# Notes\\n\\nFirst point"}')
        ],
        "finish_reason": "length",
    },
)

# --- qwen_xml: tool-named tags (Qwen web chat) ---------------------------------
scenario(
    "qwen_xml",
    "qwen3-max",
    ("read", "search"),
    provider="qwen_xml",
    what="Qwen web chat tool-named XML tags",
    content="I'll read the file and search the docs.\n\n<read>\n"
    "<filePath>/home/user/package.json</filePath>\n<limit>200</limit>\n</read>\n"
    "<search>\n<query>jest config <b>moduleNameMapper</b></query>\n"
    "<filters>{'lang': 'en', 'max': 5}</filters>\n<tags>[\"jest\", \"config\"]</tags>\n"
    "</search>",
    content_text="I'll read the file and search the docs.\n\n\n",
    content_calls=[
        call("read", args(filePath="/home/user/package.json", limit=200)),
        call(
            "search",
            args(
                query="jest config <b>moduleNameMapper</b>",
                filters={"lang": "en", "max": 5},
                tags=["jest", "config"],
            ),
        ),
    ],
    reasoning_model="qwen3-max-thinking",
    thinking="The <read> tool gives me the file; I will use it now.\n",
    reasoning_markup="<read>\n<filePath>/home/user/tsconfig.json</filePath>\n</read>",
    reasoning_calls=[call("read", args(filePath="/home/user/tsconfig.json"))],
    answer="Reading it.",
)

# --- deepseek: V3 fenced layout, V3.1 layout ---------------------------------------------
DS_BEGIN, DS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
DS_CALL, DS_CALL_END, DS_SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
scenario(
    "deepseek",
    "deepseek-ai/DeepSeek-V3-0324",
    ("get_weather", "bash"),
    what="DeepSeek V3 (type, name, fenced pretty-printed JSON)",
    content=f"Let me look that up.{DS_BEGIN}{DS_CALL}function{DS_SEP}get_weather\n```json\n"
    '{\n  "city": "Hangzhou",\n  "days": 2\n}\n```' + DS_CALL_END + "\n"
    f"{DS_CALL}function{DS_SEP}bash\n```json\n" + '{"command": "date -u"}\n```'
    f"{DS_CALL_END}{DS_END}",
    content_text="Let me look that up.",
    content_calls=[
        call("get_weather", '{\n  "city": "Hangzhou",\n  "days": 2\n}'),
        call("bash", '{"command": "date -u"}'),
    ],
    reasoning_model="deepseek-ai/DeepSeek-V3.1",
    thinking="I need the weather for two cities, so two calls.",
    reasoning_markup=f"{DS_BEGIN}{DS_CALL}get_weather{DS_SEP}" + '{"city": "Shenzhen"}'
    f"{DS_CALL_END}{DS_CALL}get_weather{DS_SEP}" + '{"city": "Wuhan"}'
    f"{DS_CALL_END}{DS_END}",
    reasoning_calls=[
        call("get_weather", '{"city": "Shenzhen"}'),
        call("get_weather", '{"city": "Wuhan"}'),
    ],
)

# --- deepseek_v32 / deepseek_v4: DSML -------------------------------------------------
DSML = "｜DSML｜"  # DeepSeek's special token (full-width bars), which every DSML tag starts with


def dsml_param(key: str, string: bool, value: str, space: str = "") -> str:
    flag = "true" if string else "false"
    return (
        f'<{DSML}{space}parameter name="{key}" string="{flag}">{value}</{DSML}{space}parameter>\n'
    )


def dsml_invoke(name: str, *params: str, space: str = "") -> str:
    return f'<{DSML}{space}invoke name="{name}">\n{"".join(params)}</{DSML}{space}invoke>\n'


def dsml_block(name: str, *invokes: str) -> str:
    return f"<{DSML}{name}>\n{''.join(invokes)}</{DSML}{name}>"


scenario(
    "deepseek_v32",
    "deepseek-ai/DeepSeek-V3.2",
    ("get_weather", "bash"),
    what="DeepSeek V3.2 DSML (function_calls block, string and JSON parameters)",
    content="I'll look both up.\n\n"
    + dsml_block(
        "function_calls",
        dsml_invoke(
            "get_weather", dsml_param("city", True, "Hangzhou"), dsml_param("days", False, "3")
        ),
        dsml_invoke(
            "bash",
            dsml_param("command", True, 'date -u "+%H:%M"'),
            dsml_param("timeout", False, "30"),
        ),
    ),
    content_text="I'll look both up.\n\n",
    content_calls=[
        call("get_weather", args(city="Hangzhou", days=3)),
        call("bash", args(command='date -u "+%H:%M"', timeout=30)),
    ],
    reasoning_model="deepseek-ai/DeepSeek-V3.2",
    thinking="Two cities, so two calls; Celsius for the second.\n",
    reasoning_markup=dsml_block(
        "function_calls",
        dsml_invoke("get_weather", dsml_param("city", True, "Shenzhen")),
        dsml_invoke(
            "get_weather", dsml_param("city", True, "Wuhan"), dsml_param("units", True, "c")
        ),
    ),
    reasoning_calls=[
        call("get_weather", args(city="Shenzhen")),
        call("get_weather", args(city="Wuhan", units="c")),
    ],
)
scenario(
    "deepseek_v4",
    "deepseek-ai/DeepSeek-V4-Flash",
    ("write_file", "bash"),
    what="DeepSeek V4 DSML (tool_calls block); V4.1's spaced tags and a JSON body in reasoning",
    content="\n\n"
    + dsml_block(
        "tool_calls",
        dsml_invoke(
            "write_file",
            dsml_param("path", True, "notes/todo.md"),
            dsml_param("content", True, "# TODO\n\n- ship <b>v4</b>\n"),
            dsml_param("overwrite", False, "false"),
        ),
    ),
    # The blank line V4's template writes before the block is text outside the markup.
    content_text="\n\n",
    content_calls=[
        call(
            "write_file",
            args(path="notes/todo.md", content="# TODO\n\n- ship <b>v4</b>\n", overwrite=False),
        )
    ],
    reasoning_model="deepseek-ai/DeepSeek-V4.1-Flash",
    thinking="List the directory, then count the lines.",
    reasoning_markup=f"<{DSML} calls>\n"
    + dsml_invoke("bash", dsml_param("command", True, "ls -la", " "), space=" ")
    + f'<{DSML} invoke name="bash">\n{{"command": "wc -l *.md", "timeout": 5}}\n</{DSML} invoke>\n'
    + f"</{DSML} calls>",
    reasoning_calls=[
        call("bash", args(command="ls -la")),
        # A JSON body goes out as the model wrote it.
        call("bash", '{"command": "wc -l *.md", "timeout": 5}'),
    ],
)

# --- minimax_m3: namespaced XML, nested values ----------------------------------------
NS = "]<]minimax[>["  # MiniMax M3's namespace token, before every tag
scenario(
    "minimax_m3",
    "MiniMaxAI/MiniMax-M3",
    ("search", "get_weather"),
    what="MiniMax M3 (namespaced tags, nested object and array values, think block in content)",
    content="<mm:think>The user wants async runtimes; search with a filter.\n</mm:think>\n\n"
    f"Searching now.\n{NS}<tool_call>\n"
    f'{NS}<invoke name="search">{NS}<query>rust async <runtimes>{NS}</query>'
    f"{NS}<tags>{NS}<item>rust{NS}</item>{NS}<item>async{NS}</item>{NS}</tags>"
    f"{NS}<filters>{NS}<year>2025{NS}</year>{NS}<lang>en{NS}</lang>{NS}</filters>"
    f"{NS}</invoke>\n"
    f'{NS}<invoke name="get_weather">{NS}<city>Oslo{NS}</city>{NS}<days>03{NS}</days>'
    f"{NS}</invoke>\n{NS}</tool_call>",
    # The whitespace after </mm:think> is framing; the newline before the block is text.
    content_text="Searching now.\n",
    content_reasoning="The user wants async runtimes; search with a filter.\n",
    content_calls=[
        call(
            "search",
            # "filters" declares no properties: its leaves stay strings.
            args(
                query="rust async <runtimes>",
                tags=["rust", "async"],
                filters={"year": "2025", "lang": "en"},
            ),
        ),
        call("get_weather", args(city="Oslo", days=3)),
    ],
    reasoning_model="MiniMaxAI/MiniMax-M3",
    thinking="I'll look up the weather first.\n",
    reasoning_markup=f'{NS}<tool_call>\n{NS}<invoke name="get_weather">{NS}<city>Bergen'
    f"{NS}</city>{NS}<units>c{NS}</units>{NS}</invoke>\n{NS}</tool_call>",
    reasoning_calls=[call("get_weather", args(city="Bergen", units="c"))],
)

# --- seed_oss: Qwen3-Coder XML in <seed:tool_call>, <seed:think> reasoning ----------------
scenario(
    "seed_oss",
    "ByteDance-Seed/Seed-OSS-36B-Instruct",
    ("get_weather", "bash"),
    what="Seed-OSS (think block with budget notes and a quoted call in content, then two calls)",
    content="<seed:think>The user wants Paris weather. The format is <seed:tool_call>\n"
    "<function=get_weather>\n</function>\n</seed:tool_call>.\n<seed:cot_budget_reflect>I have "
    "used 40 tokens.</seed:cot_budget_reflect>\nCall it now.</seed:think>\n\nChecking.\n"
    "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n"
    "<parameter=days>2</parameter>\n</function>\n</seed:tool_call>\n<seed:tool_call>\n"
    "<function=bash>\n<parameter=command>curl -s 'wttr.in/Paris?format=3'</parameter>\n"
    "<parameter=timeout>10</parameter>\n</function>\n</seed:tool_call>",
    # The whitespace after </seed:think> is framing; the call quoted in the thinking is text.
    content_text="Checking.\n\n",
    content_reasoning="The user wants Paris weather. The format is <seed:tool_call>\n"
    "<function=get_weather>\n</function>\n</seed:tool_call>.\n<seed:cot_budget_reflect>I have "
    "used 40 tokens.</seed:cot_budget_reflect>\nCall it now.",
    content_calls=[
        call("get_weather", args(city="Paris", days=2)),
        call("bash", args(command="curl -s 'wttr.in/Paris?format=3'", timeout=10)),
    ],
    reasoning_model="ByteDance-Seed/Seed-OSS-36B-Instruct",
    thinking="A reasoning parser split the thinking out; the call came inside it.\n",
    reasoning_markup="<seed:tool_call>\n<function=get_weather>\n<parameter=city>Nice"
    "</parameter>\n</function>\n</seed:tool_call>",
    reasoning_calls=[call("get_weather", args(city="Nice"))],
)

# --- longcat: Hermes' call objects in LongCat's tags --------------------------------------
scenario(
    "longcat",
    "meituan-longcat/LongCat-Flash-Chat",
    ("get_weather", "get_time"),
    what="LongCat (JSON call objects in <longcat_tool_call> tags)",
    content="Let me check.\n<longcat_tool_call>"
    '{"name": "get_weather", "arguments": {"city": "Tokyo", "days": 2}}</longcat_tool_call>\n'
    '<longcat_tool_call>{"name": "get_time", "arguments": {}}</longcat_tool_call>',
    content_text="Let me check.\n\n",
    content_calls=[call("get_weather", '{"city": "Tokyo", "days": 2}'), call("get_time", "{}")],
    reasoning_model="meituan-longcat/LongCat-Flash-Thinking",
    thinking="The time first.\n",
    reasoning_markup='<longcat_tool_call>{"name": "get_time", "arguments": {}}</longcat_tool_call>',
    reasoning_calls=[call("get_time", "{}")],
)

# --- gigachat3: a "function call" message (3) or <|function_call|> (3.1), then JSON ------
scenario(
    "gigachat3",
    "ai-sage/GigaChat3-10B-A1.8B",
    ("bash",),
    what="GigaChat 3 (a function-call message after the text, then end of sequence)",
    content="I'll check that for you.<|message_sep|>\n\nfunction call<|role_sep|>\n"
    '{"name": "bash", "arguments": {"command": "ls -la ~/projects"}}</s>',
    content_text="I'll check that for you.",
    content_calls=[call("bash", '{"command": "ls -la ~/projects"}')],
    reasoning_model="ai-sage/GigaChat3.1-702B-A36B",
    thinking="A shell command answers this.",
    reasoning_markup='<|function_call|>{"name": "bash", "arguments": {"command": "uptime"}}',
    reasoning_calls=[call("bash", '{"command": "uptime"}')],
)

# --- glm45: GLM-4.5 newline layout, GLM-4.7 compact layout -------------------------------
scenario(
    "glm45",
    "zai-org/GLM-4.5",
    ("get_weather", "get_time"),
    what="GLM-4.5 (name and arguments on their own lines)",
    content="Checking both for you.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n"
    "<arg_value>Beijing</arg_value>\n<arg_key>days</arg_key>\n<arg_value>5</arg_value>\n"
    "</tool_call>\n<tool_call>get_time\n</tool_call>\nOne moment.",
    content_text="Checking both for you.\n\n\nOne moment.",
    content_calls=[call("get_weather", args(city="Beijing", days=5)), call("get_time", "{}")],
    reasoning_model="zai-org/GLM-4.7",
    thinking="The user asked about Shanghai weather in Fahrenheit.",
    reasoning_markup="<tool_call>get_weather<arg_key>city</arg_key><arg_value>Shanghai"
    "</arg_value><arg_key>units</arg_key><arg_value>f</arg_value></tool_call>",
    reasoning_calls=[call("get_weather", args(city="Shanghai", units="f"))],
    reasoning_fields=("reasoning", "reasoning_content"),
)

# --- minimax_m2 --------------------------------------------------------------------------
scenario(
    "minimax_m2",
    "MiniMaxAI/MiniMax-M2",
    ("search", "get_time"),
    what="MiniMax M2 (several invokes in one block)",
    # Served with vLLM's minimax_m2_append_think reasoning parser, as MiniMax recommends: the
    # whole output is content, the think block included.
    content="<think>The user wants async runtimes and the time; search first.\n</think>\n\n"
    'Searching now.\n<minimax:tool_call>\n<invoke name="search">\n'
    '<parameter name="query">rust async runtimes</parameter>\n'
    '<parameter name="tags">["rust", "async"]</parameter>\n</invoke>\n'
    '<invoke name="get_time">\n</invoke>\n</minimax:tool_call>',
    content_text="Searching now.\n",
    content_reasoning="The user wants async runtimes and the time; search first.\n",
    content_calls=[
        call("search", args(query="rust async runtimes", tags=["rust", "async"])),
        call("get_time", "{}"),
    ],
    reasoning_model="MiniMaxAI/MiniMax-M2",
    thinking="I'll search with a filter on the year.\n",
    reasoning_markup='<minimax:tool_call>\n<invoke name="search">\n'
    '<parameter name="query">tokio vs smol</parameter>\n'
    '<parameter name="filters">{"year": 2025}</parameter>\n</invoke>\n'
    "</minimax:tool_call>",
    reasoning_calls=[call("search", args(query="tokio vs smol", filters={"year": 2025}))],
)

# --- mistral: v11+ names, pre-v11 arrays -------------------------------------------------
scenario(
    "mistral",
    "mistralai/Devstral-Small-2507",
    ("bash", "get_time"),
    what="Mistral v11+ ([TOOL_CALLS]name{args} and [ARGS])",
    content='Running both.[TOOL_CALLS]bash{"command": "git status --short"}'
    "[TOOL_CALLS]get_time[ARGS]{}",
    content_text="Running both.",
    content_calls=[
        call("bash", '{"command": "git status --short"}', MISTRAL_ID),
        call("get_time", "{}", MISTRAL_ID),
    ],
    reasoning_model="mistralai/Magistral-Small-2506",
    thinking="Two commands are needed; the tool call array goes first.",
    reasoning_markup='[TOOL_CALLS] [{"name": "bash", "arguments": {"command": "ls"}}, '
    '{"name": "bash", "arguments": "{\\"command\\": \\"pwd\\"}"}]',
    reasoning_calls=[
        call("bash", '{"command": "ls"}', MISTRAL_ID),
        call("bash", '{"command": "pwd"}', MISTRAL_ID),
    ],
)

# --- llama3_json -------------------------------------------------------------------------
scenario(
    "llama3_json",
    "meta-llama/Llama-3.3-70B-Instruct",
    ("get_weather", "get_time"),
    what="Llama 3.x JSON after <|python_tag|>, calls separated by ';'",
    content='<|python_tag|>{"name": "get_weather", "parameters": {"city": "Lisbon", "days": 2}};'
    ' {"name": "get_time", "parameters": {}}',
    content_text="",
    content_calls=[call("get_weather", '{"city": "Lisbon", "days": 2}'), call("get_time", "{}")],
    reasoning_model="meta-llama/Llama-3.3-70B-Instruct-reasoning",
    thinking="The forecast needs a call. Format: {city} only.\n",
    reasoning_markup='{"name": "get_weather", "parameters": {"city": "Porto"}}',
    reasoning_calls=[call("get_weather", '{"city": "Porto"}')],
)

# --- gpt_oss: harmony leaking as text ----------------------------------------------------
scenario(
    "gpt_oss",
    "openai/gpt-oss-120b",
    ("get_weather", "bash"),
    what="gpt-oss harmony messages leaking as text",
    content="<|channel|>analysis<|message|>Need weather then a shell check.<|end|>"
    "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json"
    '<|message|>{"city": "SF"}<|call|><|start|>assistant<|channel|>commentary '
    'to=functions.bash <|constrain|>json<|message|>{"command": "uptime"}<|call|>',
    # The analysis channel is the model's reasoning; nothing is written to the final channel.
    content_text="",
    content_reasoning="Need weather then a shell check.",
    content_calls=[call("get_weather", '{"city": "SF"}'), call("bash", '{"command": "uptime"}')],
    reasoning_model="openai/gpt-oss-20b",
    thinking="We need to run a command.",
    reasoning_markup="<|start|>assistant<|channel|>commentary to=functions.bash <|constrain|>json"
    '<|message|>{"command": "df -h"}<|call|>',
    reasoning_calls=[call("bash", '{"command": "df -h"}')],
)

# --- kimi_k3: Kimi K3 channels (special tokens kept: skip_special_tokens false) ----------
K3_OPEN, K3_CLOSE, K3_SEP = "<|open|>", "<|close|>", "<|sep|>"


def k3(kind: str, name: str, attributes: str = "") -> str:
    """A K3 channel marker: ``<|open|>NAME attrs<|sep|>`` or ``<|close|>NAME<|sep|>``."""
    return (K3_OPEN if kind == "open" else K3_CLOSE) + name + attributes + K3_SEP


def k3_argument(key: str, kind: str, value: str) -> str:
    return k3("open", "argument", f' key="{key}" type="{kind}"') + value + k3("close", "argument")


K3_MODEL = "moonshotai/Kimi-K3"
scenario(
    "kimi_k3",
    K3_MODEL,
    ("get_weather", "get_time", "write_file"),
    what="Kimi K3 without a reasoning parser: the template opened the think channel",
    content="The user wants Tokyo's weather & the time; two calls, then a note."
    + k3("close", "think")
    + k3("open", "response")
    + "Checking both <now>."
    + k3("close", "response")
    + k3("open", "tools")
    + k3("open", "call", ' tool="get_weather" index="1"')
    + k3_argument("city", "string", "Tokyo")
    + k3_argument("days", "number", "3")
    + k3("close", "call")
    + k3("open", "call", ' tool="get_time" index="2"')
    + k3("close", "call")
    + k3("open", "call", ' tool="write_file" index="3"')
    + k3_argument("path", "string", "notes/a&b.md")
    + k3_argument("content", "string", '# Plan\n\n- ask "why"\n')
    + k3_argument("overwrite", "boolean", "true")
    + k3("close", "call")
    + k3("close", "tools")
    + k3("close", "message"),
    content_text="Checking both <now>.",
    content_reasoning="The user wants Tokyo's weather & the time; two calls, then a note.",
    content_calls=[
        call("get_weather", args(city="Tokyo", days=3)),
        call("get_time", "{}"),
        call(
            "write_file",
            args(path="notes/a&b.md", content='# Plan\n\n- ask "why"\n', overwrite=True),
        ),
    ],
    reasoning_model=K3_MODEL,
    # vLLM's kimi_k3 reasoning parser without its tool parser: the model opened its tools
    # channel before closing the think channel, so all of it streams as reasoning.
    thinking="I should list the files first.\n",
    reasoning_markup=k3("open", "tools")
    + k3("open", "call", ' tool="write_file" index="1"')
    + k3_argument("path", "string", "ls.txt")
    + k3_argument("content", "string", "x")
    + k3("close", "call")
    + k3("close", "tools"),
    reasoning_calls=[call("write_file", args(path="ls.txt", content="x"))],
    reasoning_fields=("reasoning", "reasoning_content"),
)

# --- gemma4: Gemma 4 (special tokens kept: skip_special_tokens false) -------------------
G4_Q = '<|"|>'
GEMMA_MODEL = "google/gemma-4-31B-it"
scenario(
    "gemma4",
    GEMMA_MODEL,
    ("search", "get_weather"),
    what="Gemma 4 with its thought channel in content",
    content="<|channel>thought\nSearch first, then the weather; both in one turn.<channel|>"
    "On it: {searching, then checking}."
    f'<|tool_call>call:search{{query:{G4_Q}rust, async: "tokio" vs {{smol}}{G4_Q},'
    f"filters:{{year:2025,lang:{G4_Q}en{G4_Q}}},tags:[{G4_Q}rust{G4_Q},{G4_Q}async{G4_Q}]}}"
    "<tool_call|>"
    f"<|tool_call>call:get_weather{{city:{G4_Q}Zürich{G4_Q},days:3,units:null}}<tool_call|>"
    "<|tool_response>",
    content_text="On it: {searching, then checking}.",
    content_reasoning="Search first, then the weather; both in one turn.",
    content_calls=[
        call(
            "search",
            args(
                query='rust, async: "tokio" vs {smol}',
                filters={"year": 2025, "lang": "en"},
                tags=["rust", "async"],
            ),
        ),
        call("get_weather", args(city="Zürich", days=3, units=None)),
    ],
    reasoning_model="google/gemma-4-26B-A4B-it",
    thinking="The user wants Oslo; one call.\n",
    reasoning_markup=f"<|tool_call>call:get_weather{{city:{G4_Q}Oslo{G4_Q}}}<tool_call|>",
    reasoning_calls=[call("get_weather", args(city="Oslo"))],
    answer="Checking Oslo.",
)

# --- pythonic: Llama 4 (a Python list of calls) -----------------------------------------
scenario(
    "pythonic",
    "meta-llama/Llama-4-Scout-17B-16E-Instruct",
    ("get_weather", "get_time", "search"),
    what="Llama 4 pythonic calls between <|python_start|> and <|python_end|>",
    content="<|python_start|>[get_weather(city='Lisbon', days=2, units=None), get_time(), "
    "search(query=\"it's [not] (a) list\", filters={'year': 2025, 'strict': True}, "
    "tags=('a', 'b'))]<|python_end|>",
    content_text="",
    content_calls=[
        call("get_weather", args(city="Lisbon", days=2, units=None)),
        call("get_time", "{}"),
        call(
            "search",
            args(
                query="it's [not] (a) list", filters={"year": 2025, "strict": True}, tags=["a", "b"]
            ),
        ),
    ],
    reasoning_model="meta-llama/Llama-4-Maverick-17B-128E-Instruct",
    thinking="A list like [1, 2] is not a call; the weather needs one.\n",
    reasoning_markup="[get_weather(city='Porto')]",
    reasoning_calls=[call("get_weather", args(city="Porto"))],
)

# --- olmo3: Olmo 3 (pythonic calls, one per line, in <function_calls>) ---------------------
scenario(
    "olmo3",
    "allenai/Olmo-3-7B-Instruct",
    ("get_weather", "bash"),
    what="Olmo 3 pythonic calls in <function_calls>, one per line, JSON literals",
    content="I'll look both up.\n<function_calls>get_weather(city='Boston', days=2, units=null)\n"
    'bash(command="grep -rn \\"TODO\\" src/", timeout=None)</function_calls>',
    content_text="I'll look both up.\n",
    content_calls=[
        call("get_weather", args(city="Boston", days=2, units=None)),
        call("bash", args(command='grep -rn "TODO" src/', timeout=None)),
    ],
    reasoning_model="allenai/Olmo-3-32B-Think",
    thinking="The user wants the weather in Denver.\n",
    reasoning_markup="<function_calls>get_weather(city='Denver')</function_calls>",
    reasoning_calls=[call("get_weather", args(city="Denver"))],
)

# --- internlm: InternLM2.5 (JSON after <|action_start|><|plugin|>) -------------------------
scenario(
    "internlm",
    "internlm/internlm2_5-7b-chat",
    ("get_weather", "bash"),
    what="InternLM2.5 JSON calls between <|action_start|><|plugin|> and <|action_end|>",
    content="Let me check the weather first.<|action_start|><|plugin|>\n"
    '{"name": "get_weather", "parameters": {"city": "Shanghai", "days": 2}}<|action_end|>',
    content_text="Let me check the weather first.",
    content_calls=[call("get_weather", '{"city": "Shanghai", "days": 2}')],
    reasoning_model="internlm/internlm3-8b-instruct",
    thinking="I should list the directory.\n",
    reasoning_markup='<|action_start|><|plugin|>{"name": "bash", "arguments": {"command": "ls"}}'
    "<|action_end|>",
    reasoning_calls=[call("bash", '{"command": "ls"}')],
)

# --- phi4_mini: Phi-4-mini (a JSON list after "functools") --------------------------------
scenario(
    "phi4_mini",
    "microsoft/Phi-4-mini-instruct",
    ("get_weather", "get_time"),
    what="Phi-4-mini JSON call list after the functools marker",
    content='For the forecast I\'ll call the tool first.\nfunctools[{"name": "get_weather", '
    '"arguments": {"city": "Tokyo", "days": 3}}, {"name": "get_weather", "arguments": '
    '"{\\"city\\": \\"Osaka\\"}"}, {"name": "get_time", "parameters": {}}]',
    content_text="For the forecast I'll call the tool first.\n",
    content_calls=[
        call("get_weather", '{"city": "Tokyo", "days": 3}'),
        call("get_weather", '{"city": "Osaka"}'),
        call("get_time", "{}"),
    ],
    reasoning_model="microsoft/Phi-4-mini-flash-reasoning",
    thinking="functools.partial is not a call; the weather needs one.\n",
    reasoning_markup='functools[{"name": "get_weather", "arguments": {"city": "Lima"}}]',
    reasoning_calls=[call("get_weather", '{"city": "Lima"}')],
)

# --- xlam: Salesforce xLAM (a bare JSON list of calls) ------------------------------------
scenario(
    "xlam",
    "Salesforce/Llama-xLAM-2-8b-fc-r",
    ("get_weather", "bash"),
    what="xLAM JSON call list in a json fence",
    content='Both at once:\n```json\n[{"name": "get_weather", "arguments": '
    '{"city": "Dallas", "units": "f"}}, {"name": "bash", "arguments": {"command": '
    '"ls [a-z]*", "timeout": 5}}]\n```',
    content_text="Both at once:\n",
    content_calls=[
        call("get_weather", '{"city": "Dallas", "units": "f"}'),
        call("bash", '{"command": "ls [a-z]*", "timeout": 5}'),
    ],
    reasoning_model="Salesforce/xLAM-2-32b-fc-r",
    thinking="A list like [1, 2] is not a call.\n",
    reasoning_markup='[{"name": "get_weather", "arguments": "{\\"city\\": \\"Austin\\"}"}]',
    reasoning_calls=[call("get_weather", '{"city": "Austin"}')],
)

# --- hunyuan_a13b: Hunyuan-A13B and Jamba (a JSON list in <tool_calls>) ---------------------
scenario(
    "hunyuan_a13b",
    "tencent/Hunyuan-A13B-Instruct",
    ("get_weather", "bash"),
    what="Hunyuan-A13B JSON call list in <tool_calls>, inside its <answer> framing",
    content='<answer>\nChecking both.<tool_calls>[{"name": "get_weather", "arguments": '
    '{"city": "Shenzhen", "days": 2}}, {"name": "bash", "arguments": {"command": '
    '"ls [a-z]*"}}]</tool_calls>\n</answer>',
    content_text="Checking both.\n",
    content_calls=[
        call("get_weather", '{"city": "Shenzhen", "days": 2}'),
        call("bash", '{"command": "ls [a-z]*"}'),
    ],
    reasoning_model="ai21labs/AI21-Jamba-Mini-1.7",
    thinking="A <tool_calls> tag alone in prose is not a call.\n",
    reasoning_markup='<tool_calls>[{"name": "get_weather", "arguments": {"city": "Haifa"}}]'
    "</tool_calls>",
    reasoning_calls=[call("get_weather", '{"city": "Haifa"}')],
)

# --- hy_v3: Tencent Hy3 (key/value calls in a <tool_calls> block, Hy3's tag spelling) --------


def hy3_call(name: str, *params: tuple[str, str], suffix: str = ":opensource") -> str:
    """A call as Hy3's chat template writes it (``suffix``: Hy3's spelling of the tags)."""

    def tag(name: str, closing: bool = False) -> str:
        return f"<{'/' if closing else ''}{name}{suffix}>"

    body = "".join(
        f"{tag('arg_key')}{key}{tag('arg_key', True)}\n"
        f"{tag('arg_value')}{value}{tag('arg_value', True)}\n"
        for key, value in params
    )
    return f"{tag('tool_call')}{name}{tag('tool_sep')}\n{body}{tag('tool_call', True)}\n"


def hy3_block(*calls: str, suffix: str = ":opensource") -> str:
    return f"<tool_calls{suffix}>\n{''.join(calls)}</tool_calls{suffix}>"


scenario(
    "hy_v3",
    "tencent/Hy3",
    ("get_weather", "bash"),
    what="Tencent Hy3 key/value calls in a <tool_calls> block, in Hy3's spelling of the tags",
    content="I'll check the weather and the disk."
    + hy3_block(
        hy3_call("get_weather", ("city", "Shenzhen"), ("days", "2")),
        hy3_call("bash", ("command", 'df -h | grep "/dev/<disk>"\n'), ("timeout", "null")),
    )
    + "\nBack shortly.",
    # The line break after the block is the model's text; the values are exact.
    content_text="I'll check the weather and the disk.\nBack shortly.",
    content_calls=[
        call("get_weather", args(city="Shenzhen", days=2)),
        call("bash", args(command='df -h | grep "/dev/<disk>"\n', timeout=None)),
    ],
    reasoning_model="tencent/Hy3-preview",
    thinking="The user wants Wuhan's weather in Celsius; one call.\n",
    reasoning_markup=hy3_block(
        hy3_call("get_weather", ("city", "Wuhan"), ("units", "c"), suffix=""), suffix=""
    ),
    reasoning_calls=[call("get_weather", args(city="Wuhan", units="c"))],
    reasoning_fields=("reasoning", "reasoning_content"),
)

# --- lfm2: Liquid AI LFM2 (a pythonic list between <|tool_call_start|> and <|tool_call_end|>)
scenario(
    "lfm2",
    "LiquidAI/LFM2.5-1.2B-Instruct",
    ("get_weather", "bash"),
    what="LFM2 pythonic call list between its special tokens, echoed once after the end token",
    content="Let me check both.<|tool_call_start|>[get_weather(city='Lyon', days=2, units=null), "
    "bash(command=\"ls [a-z]*\")]<|tool_call_end|>[get_weather(city='Lyon', days=2, "
    'units=null), bash(command="ls [a-z]*")]<|tool_call_end|>\nOne moment.',
    content_text="Let me check both.\nOne moment.",
    content_calls=[
        call("get_weather", '{"city": "Lyon", "days": 2, "units": null}'),
        call("bash", '{"command": "ls [a-z]*"}'),
    ],
    reasoning_model="LiquidAI/LFM2.5-1.2B-Thinking",
    thinking="A list like [len(x)] is not a call.\n",
    reasoning_markup='<|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Nice"}}]'
    "<|tool_call_end|>",
    reasoning_calls=[call("get_weather", '{"city": "Nice"}')],
)

# --- the reasoning split: <think> blocks left in content by a server without a reasoning parser
R1 = "deepseek-ai/DeepSeek-R1-0528"
write(
    "deepseek-think-opened",
    "DeepSeek R1 without a reasoning parser: its chat template opened the think block, so the "
    "content starts inside it and only </think> shows where the answer begins.",
    req(R1, "get_weather"),
    sse(
        "chatcmpl-deepseek-t",
        R1,
        [(("content",), "The user asks 17 * 3. 17 * 3 = 51.\n</think>\n\n17 * 3 is **51**.")],
    ),
    {
        "content": "17 * 3 is **51**.",
        "reasoning": "The user asks 17 * 3. 17 * 3 = 51.\n",
        "tool_calls": [],
        "finish_reason": "stop",
    },
)
write(
    "hermes-think-then-call",
    "Qwen3 (hybrid thinking) without a reasoning parser: <think>...</think> in content, then a "
    "Hermes call. The block becomes reasoning_content, the call a tool call.",
    req("Qwen/Qwen3-32B", "get_weather", "get_time"),
    sse(
        "chatcmpl-hermes-t",
        "Qwen/Qwen3-32B",
        [
            (
                ("content",),
                "<think>\nThe user wants Oslo's weather; one call.\n</think>\n\n"
                '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
            )
        ],
    ),
    {
        "content": "",
        "reasoning": "The user wants Oslo's weather; one call.\n",
        "tool_calls": [call("get_weather", '{"city": "Oslo"}')],
        "finish_reason": "tool_calls",
    },
)
write(
    "sniff-think-at-start",
    "A model no rule knows, whose content starts with <think>: the block is split out; a "
    "<think> later in the answer is text the model wrote.",
    req("acme/reasoner-7b", "get_time"),
    sse(
        "chatcmpl-sniff-t",
        "acme/reasoner-7b",
        [
            (
                ("content",),
                "<think>Nothing to call.</think>Use <think> tags like this: <think>x</think>.",
            )
        ],
    ),
    {
        "content": "Use <think> tags like this: <think>x</think>.",
        "reasoning": "Nothing to call.",
        "tool_calls": [],
        "finish_reason": "stop",
    },
)

# --- marker sniffing: a model name no rule knows -----------------------------------------
write(
    "sniff-hermes-unknown-model",
    "A fine-tune whose name matches no rule writes Hermes calls: provider=auto recognises the "
    "format from <tool_call> followed by '{'.",
    req("acme/support-agent-v2", "get_weather"),
    sse(
        "chatcmpl-sniff-h",
        "acme/support-agent-v2",
        [
            (
                ("content",),
                "Sure, <one> moment.\n<tool_call>\n"
                '{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
            )
        ],
    ),
    {
        "content": "Sure, <one> moment.\n",
        "reasoning": None,
        "tool_calls": [call("get_weather", '{"city": "Oslo"}')],
        "finish_reason": "tool_calls",
    },
)
print(
    "wrote",
    len([p for p in OUT.glob("*.log") if not p.name.startswith("kimi_k2-")]),
    "recordings to",
    OUT,
)
