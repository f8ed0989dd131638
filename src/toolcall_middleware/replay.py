"""Recorded upstream responses (``sse_logs/``): loading them, serving them, replaying them.

A recording is ``NAME.log``, the raw response body exactly as an upstream sent it, with an
optional ``NAME.json`` beside it holding the request, the response status and headers and the
expected result. A bare capture (``curl -N ... > capture.log``) works too: the request is then
inferred from the stream itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import orjson

from .asgi import Message, Receive, Scope, Send
from .completion import chunks_from_sse
from .sse import SSEDecoder

DEFAULT_LOG = "kimi_k2-reasoning-two-calls"


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
    the request's model (the default recording otherwise); ``GET /v1/models`` lists them;
    ``GET /health`` answers 200.
    """
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    folder = directory or logs_dir()
    names = sorted(p.stem for p in folder.glob("*.log"))

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
            model = orjson.loads(b"".join(parts)).get("model", "")
        except (orjson.JSONDecodeError, AttributeError):
            model = ""
        name = model if model in self._names else DEFAULT_LOG
        recording = Recording.load(self._folder / f"{name}.log")
        await serve_recording(receive, send, recording, self._pace)
