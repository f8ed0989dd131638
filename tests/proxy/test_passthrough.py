"""What is not a chat completion with tools reaches the client as the upstream sent it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import orjson
from fake_upstream import FakeUpstream


def last_request(upstream: FakeUpstream, path: str) -> dict[str, object]:
    with upstream.seen.lock:
        return next(r for r in reversed(upstream.seen.requests) if r["path"] == path)


def test_models_and_health_are_byte_identical_to_the_upstream(
    proxy: str, upstream: FakeUpstream
) -> None:
    for path in ("/v1/models", "/health"):
        direct = httpx.get(upstream.url + path)
        proxied = httpx.get(proxy + path)
        assert proxied.status_code == direct.status_code == 200
        assert proxied.content == direct.content
        assert proxied.headers.multi_items() == direct.headers.multi_items()
    assert httpx.get(proxy + "/v1/models").headers["x-upstream"] == "models"


def test_healthz_is_the_proxys_own(proxy: str, upstream: FakeUpstream) -> None:
    before = len(upstream.seen.requests)
    response = httpx.get(proxy + "/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert len(upstream.seen.requests) == before


def test_error_status_headers_and_body_pass_through(proxy: str, upstream: FakeUpstream) -> None:
    direct = httpx.get(upstream.url + "/rate-limited")
    proxied = httpx.get(proxy + "/rate-limited")
    assert proxied.status_code == 429
    assert proxied.content == direct.content
    assert proxied.headers["retry-after"] == "7"
    assert proxied.headers["x-request-id"] == "req-42"
    assert proxied.headers.get_list("set-cookie") == ["a=1", "b=2"]
    missing = httpx.post(proxy + "/v1/nothing-here", json={})
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == "no such path"


def test_method_path_query_body_and_end_to_end_headers_are_forwarded(
    proxy: str, upstream: FakeUpstream
) -> None:
    def body() -> Iterator[bytes]:  # no Content-Length: arrives chunked, streamed on
        yield b'{"a": '
        yield b"1}"

    behind = httpx.get(
        proxy + "/echo",
        headers={
            "X-Forwarded-For": "10.1.2.3",
            "X-Forwarded-Proto": "https",
            "X-Forwarded-Host": "api.example",
        },
    )
    seen_behind = {k: v for k, v in orjson.loads(behind.content)["headers"]}
    assert seen_behind["x-forwarded-for"] == "10.1.2.3, 127.0.0.1"
    assert seen_behind["x-forwarded-proto"] == "https"
    assert seen_behind["x-forwarded-host"] == "api.example"

    response = httpx.put(
        proxy + "/echo?x=1&y=%2F",
        content=body(),
        headers={
            "Authorization": "Bearer sk-secret",
            "X-Custom": "kept",
            "Connection": "keep-alive, x-hop",
            "X-Hop": "dropped: named by Connection",
            "Proxy-Authorization": "Basic dropped",
            "TE": "trailers",
            "Accept-Encoding": "gzip, br",
        },
    )
    assert response.status_code == 200
    seen = orjson.loads(response.content)
    headers = {k: v for k, v in seen["headers"]}
    assert seen["method"] == "PUT"
    assert seen["path"] == "/echo"
    assert seen["query"] == "x=1&y=%2F"
    assert seen["body"] == '{"a": 1}'
    assert headers["authorization"] == "Bearer sk-secret"
    assert headers["x-custom"] == "kept"
    assert headers["accept-encoding"] == "identity"
    assert headers["x-forwarded-for"] == "127.0.0.1"
    assert headers["x-forwarded-proto"] == "http"
    assert headers["x-forwarded-host"] == proxy.removeprefix("http://")
    for hop in ("x-hop", "proxy-authorization", "te"):
        assert hop not in headers
    assert headers["host"] == upstream.url.removeprefix("http://")


def test_chat_request_without_tools_streams_through_untouched(
    proxy: str, upstream: FakeUpstream
) -> None:
    request = {"model": "moonshotai/Kimi-K2-Instruct", "stream": True, "messages": []}
    headers = {"x-recording": "kimi_k2-content-calls"}
    direct = httpx.post(upstream.url + "/v1/chat/completions", json=request, headers=headers)
    proxied = httpx.post(proxy + "/v1/chat/completions", json=request, headers=headers)
    assert proxied.status_code == 200
    assert proxied.content == direct.content
    assert b"<|tool_call" in proxied.content
