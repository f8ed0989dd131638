"""Gemini test helpers: the framing checker every stream in these tests goes through, an app
wrapper that applies it, direct ASGI calls, and the google-genai SDK against an app.

The scripted upstream (``ScriptedApp``) and the chunk builders are the Anthropic tests' own."""

from __future__ import annotations

import re
import ssl
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
import orjson
from google import genai
from google.genai import types

from anthropic_api.helpers import (  # noqa: F401  (re-exported for the Gemini tests)
    USAGE,
    Reply,
    ScriptedApp,
    call_delta,
    chunk,
    json_reply,
    sse_body,
    stream_reply,
)
from toolcall_middleware.asgi import ASGIApp, Message, Receive, Scope, Send

FINISH_REASONS = {"STOP", "MAX_TOKENS", "SAFETY", "OTHER"}
EVENT = re.compile(rb"data: ([^\r\n]*)\n\n")
LINE_BREAKS = ("\u2028", "\u2029", "\u0085")


@dataclass
class Checked:
    """What a checked stream held."""

    responses: list[dict[str, Any]]
    error: dict[str, Any] | None  # the bare error object that ended it, if one did


def check_sse(raw: bytes, writes: Sequence[bytes] = ()) -> Checked:
    """The framing both SDKs need, and the content rules of a Gemini stream.

    Every event is exactly ``data: <one line of JSON>`` and a blank line: no ``event:``,
    ``id:``, comment or ``[DONE]`` line, no raw U+2028/U+2029/U+0085. Every chunk is a whole
    response with one candidate (index 0, role ``model``), the same ``responseId`` and
    ``modelVersion``; ``functionCall`` parts are whole (``args`` an object, an id and a name);
    exactly the last chunk has a ``finishReason``, with ``usageMetadata``. A stream that failed
    ends instead with the bare error object, in a write of its own (``writes``)."""
    pos = 0
    responses: list[dict[str, Any]] = []
    error = None
    while pos < len(raw):
        match = EVENT.match(raw, pos)
        if match is None:
            tail = raw[pos:]
            error = orjson.loads(tail)
            assert set(error) == {"error"}, tail[:200]
            assert set(error["error"]) == {"code", "message", "status"}
            if writes:
                assert tail in writes, "the error object was not a write of its own"
            break
        text = match.group(1).decode("utf-8")
        assert not any(c in text for c in LINE_BREAKS), text
        responses.append(orjson.loads(text))
        pos = match.end()
    check_responses(responses, finished=error is None)
    return Checked(responses, error)


def check_array(raw: bytes) -> Checked:
    """REST's streamed form: one JSON array of responses (the last may be an error)."""
    doc = orjson.loads(raw)
    assert isinstance(doc, list) and raw.startswith(b"[") and raw.endswith(b"\n]")
    error = doc[-1] if doc and "error" in doc[-1] else None
    responses = doc[:-1] if error is not None else doc
    check_responses(responses, finished=error is None)
    return Checked(responses, error)


def check_responses(responses: list[dict[str, Any]], finished: bool) -> None:
    ids = {r["responseId"] for r in responses}
    models = {r["modelVersion"] for r in responses}
    assert len(ids) <= 1 and len(models) <= 1, (ids, models)
    for position, doc in enumerate(responses):
        assert set(doc) <= {"candidates", "usageMetadata", "modelVersion", "responseId"}, doc
        (candidate,) = doc["candidates"]
        assert candidate["index"] == 0 and candidate["content"]["role"] == "model"
        parts = candidate["content"]["parts"]
        assert parts, doc
        for part in parts:
            check_part(part)
        last = position == len(responses) - 1
        if "finishReason" in candidate:
            assert last, "finishReason before the last chunk"
            assert candidate["finishReason"] in FINISH_REASONS
            assert isinstance(doc["usageMetadata"]["totalTokenCount"], int)
    if finished:
        assert responses, "an empty stream"
        assert "finishReason" in responses[-1]["candidates"][0], "no finishReason at the end"


def check_part(part: dict[str, Any]) -> None:
    if "functionCall" in part:
        call = part["functionCall"]
        assert set(call) == {"id", "name", "args"}, call
        assert isinstance(call["args"], dict) and call["name"] and call["id"]
        assert set(part) <= {"functionCall", "thoughtSignature"}
    else:
        assert isinstance(part["text"], str), part
        assert set(part) <= {"text", "thought"} and part.get("thought", True) is True


@dataclass
class CheckedApp:
    """Wraps the app under test; every stream it sends is checked when it ends."""

    app: ASGIApp
    streams: list[Checked] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        writes: list[bytes] = []
        kind = b""

        async def recording_send(message: Message) -> None:
            nonlocal kind
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers", ()))
                kind = headers.get(b"content-type", b"")
            elif message["type"] == "http.response.body":
                writes.append(message.get("body", b""))
            await send(message)

        await self.app(scope, receive, recording_send)
        # Checked once the app returned: an assertion raised inside ``send`` would look like a
        # client disconnect to the app under test.
        raw = b"".join(writes)
        if kind.startswith(b"text/event-stream"):
            self.streams.append(check_sse(raw, writes))
        elif kind.startswith(b"application/json") and raw.startswith(b"["):
            self.streams.append(check_array(raw))


@dataclass
class Response:
    status: int
    headers: dict[bytes, bytes]
    body: bytes
    writes: list[bytes]

    def json(self) -> Any:
        return orjson.loads(self.body)


async def request(
    app: ASGIApp,
    doc: Any,
    path: str = "/v1beta/models/gemini-2.5-pro:generateContent",
    *,
    query: bytes = b"",
    headers: Sequence[tuple[bytes, bytes]] = (),
    method: str = "POST",
    raw: bytes | None = None,
) -> Response:
    """Call the app directly (no HTTP client) and record what it sends."""
    body = raw if raw is not None else (orjson.dumps(doc) if doc is not None else b"")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query,
        "client": ("127.0.0.1", 1),
        "server": ("test", 80),
        "headers": [(b"host", b"test"), (b"content-type", b"application/json"), *headers],
    }
    sent: list[Message] = []
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> Message:
        if pending:
            return pending.pop()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def send(message: Message) -> None:
        sent.append(message)

    with anyio.fail_after(10):
        await CheckedApp(app)(scope, receive, send)
    start = sent[0]
    assert start["type"] == "http.response.start"
    assert not sent[-1].get("more_body", False)
    writes = [m.get("body", b"") for m in sent[1:]]
    return Response(start["status"], dict(start.get("headers", ())), b"".join(writes), writes)


def stream_path(model: str = "gemini-2.5-pro", version: str = "v1beta") -> str:
    return f"/{version}/models/{model}:streamGenerateContent"


#: One TLS context for every test client: the SDK otherwise loads the CA bundle for each client
#: (about 20 ms), though an ASGI transport never uses it.
TLS = ssl.create_default_context()


def sdk_client(app: ASGIApp, api_version: str | None = None, checked: bool = True) -> genai.Client:
    """The google-genai SDK against ``app`` (wrapped in the framing checker)."""
    transport = httpx2.ASGITransport(app=CheckedApp(app) if checked else app)
    options = types.HttpOptions(
        base_url="http://test",
        api_version=api_version,
        async_client_args={"transport": transport, "verify": TLS},
    )
    return genai.Client(api_key="test-key", http_options=options)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


def base_request(**extra: Any) -> dict[str, Any]:
    return {"contents": [user("hi")], **extra}


BASH_TOOL = {
    "functionDeclarations": [
        {
            "name": "run_shell_command",
            "description": "Run a shell command",
            "parametersJsonSchema": {
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"],
            },
        }
    ]
}
