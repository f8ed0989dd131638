"""Recorded upstream responses (``sse_logs/``): loading them, serving them, replaying them.

A recording is ``NAME.log``, the raw response body exactly as an upstream sent it, with an
optional ``NAME.json`` beside it holding the request, the response status and headers and the
expected result. A bare capture (``curl -N ... > capture.log``) works too: the request is then
inferred from the stream itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import orjson

from .asgi import Message, Receive, Scope, Send
from .completion import chunks_from_sse, completion_from_sse
from .sse import SSEDecoder

DEFAULT_LOG = "kimi_k2-reasoning-two-calls"


class RecordingError(ValueError):
    """A file that holds no response a client could have received."""


def logs_dir() -> Path:
    """The bundled recordings: inside the installed package, or the repository's ``sse_logs``."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "sse_logs", here.parents[1] / "sse_logs"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("no bundled sse_logs directory found")


@dataclass(frozen=True)
class Recording:
    name: str
    body: bytes
    request: dict[str, Any]
    status: int = 200
    headers: tuple[tuple[str, str], ...] = (("content-type", "text/event-stream"),)
    expected: Mapping[str, Any] | None = None
    description: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_sse(self) -> bool:
        return any(
            k.lower() == "content-type" and v.startswith("text/event-stream")
            for k, v in self.headers
        )

    @classmethod
    def load(cls, path: str | Path) -> Recording:
        path = Path(path)
        if path.suffix == ".json":
            path = path.with_suffix(".log")
        body = path.read_bytes()
        meta_path = path.with_suffix(".json")
        if not meta_path.exists():
            return cls.from_capture(path.stem, body)
        meta = orjson.loads(meta_path.read_bytes())
        response = meta.get("response", {})
        headers = response.get("headers", {"content-type": "text/event-stream"})
        return cls(
            name=path.stem,
            body=body,
            request=meta.get("request", {}),
            status=response.get("status", 200),
            headers=tuple(headers.items()),
            expected=meta.get("expected"),
            description=meta.get("description", ""),
            meta=meta,
        )

    @classmethod
    def from_capture(cls, name: str, body: bytes) -> Recording:
        """A bare capture: SSE if it has data lines, JSON otherwise; model from the body."""
        stripped = body.lstrip()
        if stripped.startswith(b"{"):
            try:
                model = orjson.loads(body).get("model", "")
            except (orjson.JSONDecodeError, AttributeError):
                model = ""
            return cls(
                name,
                body,
                {"model": model, "stream": False},
                headers=(("content-type", "application/json"),),
            )
        decoder = SSEDecoder()
        if not any(e.data is not None for e in [*decoder.feed(body), *decoder.close()]):
            raise RecordingError(
                f"{name}: no SSE events (no 'data:' lines) and not a JSON body; capture a "
                "response with curl -N ... > FILE"
            )
        model = next((c["model"] for c in chunks_from_sse(body) if "model" in c), "")
        return cls(name, body, {"model": model, "stream": True})


def find_recording(name_or_path: str | None) -> Path:
    """A path as given, else a bundled recording by name, else the default recording."""
    if not name_or_path:
        return logs_dir() / f"{DEFAULT_LOG}.log"
    path = Path(name_or_path)
    if path.exists():
        return path
    bundled = logs_dir() / f"{name_or_path.removesuffix('.log')}.log"
    if bundled.exists():
        return bundled
    raise FileNotFoundError(f"no such recording: {name_or_path}")


def body_pieces(recording: Recording) -> list[bytes]:
    """The body cut the way an upstream sends it: one SSE event per message."""
    if not recording.is_sse:
        return [recording.body]
    decoder = SSEDecoder()
    return [e.raw for e in [*decoder.feed(recording.body), *decoder.close()]]


async def send_recording(send: Send, recording: Recording, pace: float = 0.0) -> None:
    """Send a recorded response on an ASGI ``send``, ``pace`` seconds between SSE events."""
    headers = [(k.lower().encode(), v.encode()) for k, v in recording.headers]
    await send({"type": "http.response.start", "status": recording.status, "headers": headers})
    for piece in body_pieces(recording):
        if pace:
            await anyio.sleep(pace)
        await send({"type": "http.response.body", "body": piece, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def serve_recording(
    receive: Receive, send: Send, recording: Recording, pace: float = 0.0
) -> None:
    """``send_recording``, stopped as soon as the client disconnects (as a model server
    stops generating), instead of writing into a closed connection."""
    async with anyio.create_task_group() as group:

        async def stop_on_disconnect() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            group.cancel_scope.cancel()

        group.start_soon(stop_on_disconnect)
        await send_recording(send, recording, pace)
        group.cancel_scope.cancel()


def recording_app(recording: Recording, pace: float = 0.0) -> Any:
    """A minimal ASGI app that answers every request with ``recording``."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        await serve_recording(receive, send, recording, pace)

    return app


def request_body(recording: Recording) -> bytes:
    return orjson.dumps(recording.request)


async def run_app(
    app: Any,
    body: bytes,
    path: str = "/v1/chat/completions",
    headers: list[tuple[bytes, bytes]] | None = None,
) -> tuple[int, list[tuple[bytes, bytes]], list[bytes]]:
    """Drive an ASGI app with one POST; the status, headers and each body message sent."""
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers if headers is not None else [(b"content-type", b"application/json")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    sent = False
    start: dict[str, Any] = {}
    bodies: list[bytes] = []

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            bodies.append(message.get("body", b""))

    await app(scope, receive, send)
    return start.get("status", 0), list(start.get("headers", [])), bodies


def replay_app(directory: Path | None = None, pace: float = 0.0) -> Any:
    """A Starlette app serving recordings like an upstream: the request's ``model`` picks one.

    ``POST /v1/chat/completions`` (and ``/chat/completions``) replays the recording named by
    the request's model, streamed or as one JSON body as the request's ``stream`` says; an
    unknown name gets a 404 listing the recordings. ``GET /v1/models`` lists them;
    ``GET /health`` answers 200.
    """
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    folder = directory or logs_dir()
    names = recording_names(folder)

    chat = _ChatReplay(folder, names, pace)

    async def models(request: Request) -> Response:
        return JSONResponse(
            {
                "object": "list",
                "data": [
                    {"id": n, "object": "model", "created": 0, "owned_by": "sse_logs"}
                    for n in names
                ],
            }
        )

    async def health(request: Request) -> Response:
        return Response(status_code=200)

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/chat/completions", chat, methods=["POST"]),
            Route("/v1/models", models),
            Route("/health", health),
        ]
    )


def recording_names(folder: Path | None = None) -> list[str]:
    """The recordings ``replay_app`` serves, by the model name that picks each."""
    return sorted(p.stem for p in (folder or logs_dir()).glob("*.log"))


class _ChatReplay:
    """The chat completions endpoint of ``replay_app`` (an ASGI app, so Starlette routes to it
    without wrapping it in a Request/Response pair)."""

    def __init__(self, folder: Path, names: list[str], pace: float) -> None:
        self._folder, self._names, self._pace = folder, names, pace

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        parts = []
        while True:
            message = await receive()
            parts.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        try:
            request = orjson.loads(b"".join(parts))
        except orjson.JSONDecodeError:
            request = None
        if not isinstance(request, dict):
            request = {}
        model = request.get("model")
        if not isinstance(model, str) or model not in self._names:
            await send_json(send, 404, unknown_model(model, self._names))
            return
        recording = Recording.load(self._folder / f"{model}.log")
        recording = as_requested(recording, request.get("stream") is True)
        await serve_recording(receive, send, recording, self._pace)


def unknown_model(model: object, names: list[str]) -> dict[str, Any]:
    """OpenAI's answer to a model it does not serve, listing the recordings that exist."""
    return {
        "error": {
            "message": f"The model {model!r} is not one of the bundled recordings: "
            f"{', '.join(names)} (GET /v1/models lists them)",
            "type": "invalid_request_error",
            "param": "model",
            "code": "model_not_found",
        }
    }


async def send_json(send: Send, status: int, doc: Any) -> None:
    body = orjson.dumps(doc)
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def as_requested(recording: Recording, stream: bool) -> Recording:
    """``recording`` in the form the request asked for: a streamed recording assembled into
    the ``chat.completion`` a non-streamed request gets, and the reverse. Error answers (not
    2xx) stay as they were recorded."""
    if not 200 <= recording.status < 300 or recording.is_sse == stream:
        return recording
    if stream:
        completion = orjson.loads(recording.body)
        body = sse_of_completion(completion if isinstance(completion, dict) else {})
        headers = (("content-type", "text/event-stream"),)
    else:
        body = orjson.dumps(completion_from_sse(recording.body))
        headers = (("content-type", "application/json"),)
    return dataclasses.replace(recording, body=body, headers=headers)


def sse_of_completion(completion: Mapping[str, Any]) -> bytes:
    """A ``chat.completion`` as the stream a server would have sent for it: per choice one
    delta holding the whole message, then its finish; usage last, then ``[DONE]``."""
    meta = {k: completion[k] for k in ("id", "created", "model") if k in completion}
    meta["object"] = "chat.completion.chunk"
    events = []
    for choice in completion.get("choices") or ():
        index = choice.get("index", 0)
        message = dict(choice.get("message") or {})
        calls = message.pop("tool_calls", None)
        delta = {k: v for k, v in message.items() if v is not None}
        if calls:
            delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(calls)]
        for piece in (
            {"index": index, "delta": delta, "finish_reason": None},
            {"index": index, "delta": {}, "finish_reason": choice.get("finish_reason")},
        ):
            events.append({**meta, "choices": [piece]})
    if completion.get("usage") is not None:
        events.append({**meta, "choices": [], "usage": completion["usage"]})
    return b"".join(b"data: " + orjson.dumps(e) + b"\n\n" for e in events) + b"data: [DONE]\n\n"
