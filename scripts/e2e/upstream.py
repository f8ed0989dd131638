"""A scripted Chat Completions server for end-to-end runs of real clients.

It stands in for a model server that writes its tool calls as raw markup, the way open-weight
models do when the serving stack does not parse them. Each request is answered from the
conversation it carries:

- a request whose last message is a tool result gets the final answer, which quotes that
  result on one line (so a client that printed it has proved the whole round trip);
- a request that offers a shell tool gets one call of it, written in the configured ``format``;
- a request that asks for JSON (``response_format``) gets a small value its schema accepts, as
  a model under guided decoding writes (gemini-cli's routing and loop checks retry otherwise);
- anything else (titles, summaries, other helper requests a client makes) gets a short text.

Formats (their markup in ``markup.py``): ``kimi`` (Kimi K2 special tokens inside
``reasoning_content``), ``qwen3_coder`` (XML in ``content``), ``hermes`` (``<tool_call>`` JSON
in ``content``), ``hy3`` (Tencent Hy3's ``<tool_calls:opensource>`` tags in ``content``),
``deepseek_v4`` (DeepSeek V4's DSML ``tool_calls`` block in ``content``, after its reasoning),
``deepseek_v32`` (DeepSeek V3.2's DSML ``function_calls`` block inside its reasoning),
``kimi_k3`` (Kimi K3's channels in ``content``, starting inside its think channel),
``gemma4`` (Gemma 4's ``<|tool_call>`` block in ``content``), ``glm47`` (GLM-4.7's one-line
``<tool_call>`` inside its reasoning, in both reasoning fields), ``minimax_m3`` (MiniMax M3's
namespaced block in ``content``, after its ``<mm:think>`` block), ``native`` (OpenAI
``tool_calls``) and ``native_bad_json`` (native ``tool_calls`` whose arguments are not valid JSON).
``--preamble TEXT`` has the formats that write their calls in ``content`` say ``TEXT`` before
the call, as models often do (Kimi's call always follows a sentence of reasoning).

Every request body is appended as one JSON line to ``--log`` for the runner to inspect.

    python scripts/e2e/upstream.py --port 8000 --format kimi --command 'echo hi > out.txt'
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from markup import FORMATS as MARKUP_FORMATS
from markup import THOUGHT, kimi_k3_text, markup

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

FORMATS = (*MARKUP_FORMATS, "native", "native_bad_json")
#: Tool names clients give their shell tool (Claude Code, Codex, gemini-cli).
SHELL_TOOLS = ("Bash", "shell", "shell_command", "exec_command", "run_shell_command")
FINAL_PREFIX = "FINAL ANSWER:"


def shell_tool(tools: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """The offered shell tool's name and parameter schema."""
    offered = {}
    for tool in tools or ():
        function = tool.get("function") or {}
        if isinstance(function.get("name"), str):
            offered[function["name"]] = function.get("parameters") or {}
    for name in SHELL_TOOLS:
        if name in offered:
            return name, offered[name]
    return None


def shell_arguments(schema: dict[str, Any], command: str) -> dict[str, Any]:
    """Arguments in the shape the tool's schema asks for."""
    properties = schema.get("properties") or {}
    if "cmd" in properties:
        return {"cmd": command}
    spec = properties.get("command") or {}
    if spec.get("type") == "array":
        return {"command": ["bash", "-lc", command]}
    arguments: dict[str, Any] = {"command": command}
    if "description" in properties:
        arguments["description"] = "Run the requested command"
    return arguments


def json_instance(schema: Any) -> Any:
    """A small value that ``schema`` accepts: the first enum value or alternative, every
    property of an object, empty arrays, ``"ok"``, 1 and false."""
    if not isinstance(schema, dict):
        return {}
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return json_instance(schema[key][0])
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    kind = str(kind).lower()
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: json_instance(sub) for name, sub in properties.items()}
    return {
        "array": [],
        "string": "ok",
        "integer": 1,
        "number": 1,
        "boolean": False,
        "null": None,
    }.get(kind, {})


def thinking_off(request: dict[str, Any]) -> bool:
    """Whether a request turns thinking off (``chat_template_kwargs``), so that Kimi K3's
    template opens no think channel."""
    kwargs = request.get("chat_template_kwargs") or {}
    return kwargs.get("thinking") is False or kwargs.get("enable_thinking") is False


def asks_reasoning(request: dict[str, Any]) -> bool:
    """Whether a request asks Hy3 for reasoning: ``reasoning_effort`` in its template's
    arguments, else at the top level, and not ``no_think`` (what vLLM renders)."""
    kwargs = request.get("chat_template_kwargs") or {}
    effort = kwargs.get("reasoning_effort") or request.get("reasoning_effort") or "no_think"
    return bool(effort != "no_think")


def pieces(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class ScriptedUpstream:
    def __init__(self, fmt: str, command: str, log: str | None = None, preamble: str = "") -> None:
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}")
        self.format = fmt
        self.command = command
        self.log = log
        self.preamble = preamble
        self.calls = 0

    def deltas(self, request: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        """The answer as a list of deltas, and its finish reason. Hy3's chat template opens
        its think block when the request asks for reasoning (any ``reasoning_effort`` but
        ``no_think``), and Kimi K3's opens its think channel unless the request turns
        thinking off, so the model's text then starts with its thoughts and their end tag, as
        a server with no reasoning parser passes them on."""
        deltas, finish = self._answer(request)
        if self.format == "hy3" and asks_reasoning(request):
            deltas = [{"content": f"{THOUGHT}</think:opensource>\n"}, *deltas]
        if self.format == "kimi_k3" and not thinking_off(request):
            deltas = [{"content": f"{THOUGHT}<|close|>think<|sep|>"}, *deltas]
        return deltas, finish

    def _text(self, text: str) -> list[dict[str, Any]]:
        """An answer of text, as the model writes it."""
        if self.format == "kimi_k3":
            text = kimi_k3_text(text)
        return [{"content": p} for p in pieces(text)]

    def _answer(self, request: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        messages = request.get("messages") or []
        last = messages[-1] if messages else {}
        if last.get("role") == "tool":
            result = last.get("content")
            if isinstance(result, list):
                result = " ".join(p.get("text", "") for p in result if isinstance(p, dict))
            # Clients wrap the output in headers of their own: quote it all, on one line.
            quoted = " ".join(str(result or "").split())[:500]
            text = f"{FINAL_PREFIX} the command printed: {quoted}"
            return self._text(text), "stop"
        response_format = request.get("response_format") or {}
        if response_format.get("type") in ("json_schema", "json_object"):
            schema = (response_format.get("json_schema") or {}).get("schema")
            return self._text(json.dumps(json_instance(schema))), "stop"
        tool = shell_tool(request.get("tools") or [])
        if tool is None:
            return self._text("ok"), "stop"
        name, schema = tool
        arguments = shell_arguments(schema, self.command)
        self.calls += 1
        if self.format.startswith("native"):
            text = json.dumps(arguments)
            if self.format == "native_bad_json":
                text = text[:-1] + ",}"  # a trailing comma: not JSON
            call_id = f"call_scripted_{self.calls}"
            first = {
                "index": 0,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
            rest = [{"index": 0, "function": {"arguments": p}} for p in pieces(text)]
            return [{"tool_calls": [e]} for e in (first, *rest)], "tool_calls"
        return [
            dict.fromkeys(fields, p)
            for fields, text in markup(self.format, name, arguments, self.preamble)
            for p in pieces(text)
        ], "stop"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if scope["method"] != "POST" or not scope["path"].endswith("/chat/completions"):
            await _json(send, 404, {"error": {"message": f"no route {scope['path']}"}})
            return
        request = json.loads(body)
        if self.log:
            with open(self.log, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(request) + "\n")
        deltas, finish = self.deltas(request)
        model = request.get("model", "scripted")
        usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        if not request.get("stream"):
            await _json(send, 200, _completion(model, deltas, finish, usage))
            return
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        base = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
        }
        chunks = [
            {
                **base,
                "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}],
            }
        ]
        chunks += [
            {**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
        ]
        chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        chunks.append({**base, "choices": [], "usage": usage})
        for chunk in chunks:
            data = b"data: " + json.dumps(chunk).encode() + b"\n\n"
            await send({"type": "http.response.body", "body": data, "more_body": True})
        await send({"type": "http.response.body", "body": b"data: [DONE]\n\n", "more_body": False})


def _completion(
    model: str, deltas: list[dict[str, Any]], finish: str, usage: dict[str, int]
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    calls: list[dict[str, Any]] = []
    for delta in deltas:
        for key in ("content", "reasoning_content", "reasoning"):
            if key in delta:
                message[key] = message.get(key, "") + delta[key]
        for entry in delta.get("tool_calls", ()):
            if "id" in entry:
                calls.append(
                    {"id": entry["id"], "type": "function", "function": dict(entry["function"])}
                )
            else:
                calls[-1]["function"]["arguments"] += entry["function"]["arguments"]
    if calls:
        message["tool_calls"] = calls
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }


async def _json(send: Send, status: int, doc: Any) -> None:
    body = json.dumps(doc).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--format", choices=FORMATS, default="kimi")
    parser.add_argument("--command", required=True, help="the shell command the model calls")
    parser.add_argument("--log", help="append each request body here (JSON lines)")
    parser.add_argument("--preamble", default="", help="text before a call written in content")
    args = parser.parse_args()
    import uvicorn

    app = ScriptedUpstream(args.format, args.command, args.log, args.preamble)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
