"""Requests the proxy must refuse before the upstream sees them, with an OpenAI error.

Sent as raw bytes over a socket: an HTTP client would resolve the dot segments or fix the framing
itself. The upstream is a real server on loopback, behind a path prefix.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from fake_upstream import FakeUpstream
from hypothesis import given, settings
from hypothesis import strategies as st
from servers import serve_in_thread, start_proxy

from toolcall_middleware.proxy.checks import resolve_path
from toolcall_middleware.proxy.upstream import UpstreamProxy
from toolcall_middleware.replay import run_app

CHAT = (
    b'{"model": "m", "stream": true, "messages": [], "tools": ['
    b'{"type": "function", "function": {"name": "bash"}}]}'
)


@pytest.fixture(scope="module")
def prefixed() -> Iterator[tuple[str, FakeUpstream]]:
    """A proxy whose upstream URL has a path prefix, and that upstream."""
    upstream = FakeUpstream()
    with serve_in_thread(upstream) as url:
        upstream.url = url
        with start_proxy(url + "/api/openai", access_log=False) as proxy:
            yield proxy, upstream


def exchange(url: str, request: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
    """One raw HTTP/1.1 exchange: status, headers (lower-cased names), body."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        headers = dict(line.split(b": ", 1) for line in lines[1:])
        headers = {k.lower(): v for k, v in headers.items()}
        while len(body) < int(headers.get(b"content-length", b"0")):
            body += sock.recv(65536)
    return int(lines[0].split()[1]), headers, body


def error_of(body: bytes) -> dict[str, Any]:
    error: dict[str, Any] = orjson.loads(body)["error"]
    return error


def upstream_paths(upstream: FakeUpstream) -> list[str]:
    with upstream.seen.lock:
        return [r["path"] for r in upstream.seen.requests]


@pytest.mark.parametrize(
    "target",
    [
        b"/../admin",
        b"/v1/../../admin",
        b"/%2e%2e/admin",
        b"/v1/%2E%2e/%2e%2E/admin",
        b"/v1/..%2f..%2fadmin",
        b"/v1/..%5c..%5cadmin",
        b"/v1/models/../../../admin?x=1",
    ],
)
def test_a_path_that_would_leave_the_upstream_prefix_is_refused(
    prefixed: tuple[str, FakeUpstream], target: bytes
) -> None:
    proxy, upstream = prefixed
    before = upstream_paths(upstream)
    status, headers, body = exchange(proxy, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 400 and headers[b"content-type"] == b"application/json"
    assert error_of(body) == {
        "message": "invalid request path: its '..' segments climb above the API's root",
        "type": "invalid_request_error",
        "code": "invalid_path",
    }
    assert upstream_paths(upstream) == before  # the upstream never heard of it


@pytest.mark.parametrize(
    "target, forwarded",
    [
        (b"/v1/./models", "/api/openai/v1/models"),
        (b"/v1/files/../models", "/api/openai/v1/models"),
        (b"/v1/files/a%2Fb", "/api/openai/v1/files/a/b"),  # an encoded slash, no dot segment
    ],
)
def test_a_path_that_stays_under_the_prefix_is_resolved_and_forwarded(
    prefixed: tuple[str, FakeUpstream], target: bytes, forwarded: str
) -> None:
    proxy, upstream = prefixed
    status, _, _ = exchange(proxy, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 404  # the upstream's own answer: it serves nothing under the prefix
    assert upstream_paths(upstream)[-1] == forwarded


@pytest.mark.parametrize("path", [b"/v1/chat/completions", b"/v1/completions"])
def test_transfer_encoding_with_content_length_is_refused_and_the_connection_closed(
    prefixed: tuple[str, FakeUpstream], path: bytes
) -> None:
    proxy, upstream = prefixed
    before = upstream_paths(upstream)
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(CHAT), CHAT)
    status, headers, body = exchange(
        proxy,
        b"POST " + path + b" HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n" + chunked,
    )
    assert status == 400 and headers[b"connection"] == b"close"
    assert error_of(body) == {
        "message": "a request may not carry both Transfer-Encoding and Content-Length",
        "type": "invalid_request_error",
        "code": "ambiguous_length",
    }
    assert upstream_paths(upstream) == before


_SEGMENTS = st.sampled_from(
    [b"a", b"b", b".", b"..", b"%2e", b"%2E%2e", b"", b"a%2fb", b"x%2f..", b"..%5c", b"%2e%2e%2e"]
)


def readings(segment: bytes) -> list[bytes]:
    """What a server behind might make of a segment: decoded, encoded separators split."""
    decoded = segment.replace(b"%2f", b"/").replace(b"%5c", b"/").replace(b"%2e", b".")
    return decoded.replace(b"%2E", b".").split(b"/")


@settings(max_examples=300, deadline=None)
@given(st.lists(_SEGMENTS, max_size=8))
def test_a_resolved_path_has_no_dot_segment_in_any_reading(segments: list[bytes]) -> None:
    """Joined to a prefix, a path without dot segments cannot leave it, however a server
    behind decodes it; a path without any is forwarded as written."""
    path = b"/" + b"/".join(segments)
    resolved = resolve_path(path)
    if resolved is not None:
        assert resolved.startswith(b"/")
        assert not any(
            part in (b".", b"..")
            for segment in resolved[1:].split(b"/")
            for part in readings(segment)
        )
    if not any(part in (b".", b"..") for segment in segments for part in readings(segment)):
        assert resolved == path


@pytest.mark.anyio
async def test_an_unexpected_error_before_the_response_is_an_openai_error_not_a_bare_500() -> None:
    def broken(request: httpx.Request) -> httpx.Response:
        raise RuntimeError("a library bug")

    proxy = UpstreamProxy("http://upstream.test", transport=httpx.MockTransport(broken))
    status, headers, bodies = await run_app(proxy, b"{}", "/v1/models")
    assert status == 502 and (b"content-type", b"application/json") in headers
    assert error_of(b"".join(bodies)) == {
        "message": "the proxy could not forward the request: RuntimeError: a library bug",
        "type": "upstream_error",
        "code": "proxy_error",
    }
