"""An upstream that resets its connection mid-stream, behind a real ``toolcall serve`` app on
loopback: every API's client gets its error, then a response that ends cleanly (the chunked
terminator), never a cut connection that reads as a protocol error."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anthropic
import httpx
import openai
import orjson
import pytest
from fake_upstream import chunk
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types
from servers import start_proxy

FIRST = chunk({"role": "assistant", "content": "Hel"})
TOOLS = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]


@contextmanager
def resetting_upstream() -> Iterator[str]:
    """A raw HTTP server: each connection gets a chunked SSE response with one event, then a
    TCP reset (``SO_LINGER`` 0) instead of the rest."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.05)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(5)
            with conn:
                conn.recv(65536)
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                    b"transfer-encoding: chunked\r\n\r\n" + b"%x\r\n%s\r\n" % (len(FIRST), FIRST)
                )
                stop.wait(0.05)
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        server.close()
        thread.join(5)


@pytest.fixture(scope="module")
def proxy() -> Iterator[str]:
    with resetting_upstream() as upstream, start_proxy(upstream, access_log=False) as url:
        yield url


def read_all(url: str, doc: dict[str, Any]) -> bytes:
    """The whole body, read as a client reads it: a cut chunked body raises here."""
    with httpx.stream("POST", url, json=doc, timeout=10) as response:
        assert response.status_code == 200
        return response.read()


@pytest.mark.parametrize("tools", [TOOLS, None], ids=["rewritten", "passed-through"])
def test_chat_stream_ends_with_the_error_event_and_a_clean_end(
    proxy: str, tools: list[Any] | None
) -> None:
    doc = {"model": "m", "stream": True, "messages": [], **({"tools": tools} if tools else {})}
    body = read_all(proxy + "/v1/chat/completions", doc)
    assert body.startswith(FIRST)
    error = orjson.loads(body[len(FIRST) :].strip().removeprefix(b"data: "))["error"]
    assert error["code"] == "upstream_stream_error"

    client = openai.OpenAI(base_url=proxy + "/v1", api_key="x", max_retries=0)
    seen: list[str | None] = []
    with pytest.raises(openai.APIError, match="upstream failed mid-stream"):
        for event in client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True, tools=TOOLS
        ):
            seen.append(event.choices[0].delta.content)
    assert seen == ["Hel"]


def test_responses_client_gets_response_failed(proxy: str) -> None:
    body = read_all(proxy + "/v1/responses", {"model": "m", "input": "hi", "stream": True})
    assert b"event: response.failed" in body
    client = openai.OpenAI(base_url=proxy + "/v1", api_key="x", max_retries=0)
    events = list(client.responses.create(model="m", input="hi", stream=True))
    assert events[-1].type == "response.failed"
    assert events[-1].response.error is not None
    assert "mid-stream" in events[-1].response.error.message
    text = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert text == ["Hel"]


def test_anthropic_client_gets_the_error_event(proxy: str) -> None:
    doc = {"model": "m", "max_tokens": 9, "stream": True, "messages": [{"role": "user"}]}
    doc["messages"][0]["content"] = "hi"
    body = read_all(proxy + "/v1/messages", doc)
    assert body.rstrip().split(b"\n")[-2] == b"event: error"
    client = anthropic.Anthropic(base_url=proxy, api_key="x", max_retries=0)
    text: list[str] = []
    messages = doc["messages"]
    with (
        pytest.raises(anthropic.APIStatusError, match="mid-stream"),
        client.messages.stream(model="m", max_tokens=9, messages=messages) as stream,
    ):
        text.extend(stream.text_stream)
    assert text == ["Hel"]


def test_gemini_client_gets_a_server_error(proxy: str) -> None:
    path = "/v1beta/models/m:streamGenerateContent?alt=sse"
    body = read_all(proxy + path, {"contents": [{"parts": [{"text": "hi"}]}]})
    assert orjson.loads(body[body.rindex(b"\n\n") + 2 :])["error"]["status"] == "INTERNAL"
    client = genai.Client(
        api_key="x",
        http_options=genai_types.HttpOptions(base_url=proxy, api_version="v1beta"),
    )
    text: list[str | None] = []
    with pytest.raises(genai_errors.ServerError, match="mid-stream"):
        for response in client.models.generate_content_stream(model="m", contents="hi"):
            text.append(response.text)
    assert text == ["Hel"]
