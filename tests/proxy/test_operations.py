"""The access log, and `toolcall serve` run as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import orjson
import pytest
from fake_upstream import FakeUpstream
from servers import free_port, start_proxy

from toolcall_middleware.replay import Recording, find_recording

REQUEST = Recording.load(find_recording("kimi_k2-reasoning-two-calls")).request


def test_one_access_line_per_request_with_the_middlewares_findings(
    upstream: FakeUpstream, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="toolcall_middleware.access")
    with start_proxy(upstream.url) as proxy:
        httpx.post(proxy + "/v1/chat/completions", json=REQUEST).raise_for_status()
        httpx.get(proxy + "/v1/models").raise_for_status()
    lines = [r.fields for r in caplog.records if r.name == "toolcall_middleware.access"]  # type: ignore[attr-defined]
    assert len(lines) == 2
    chat, models = lines
    assert chat["method"] == "POST"
    assert chat["path"] == "/v1/chat/completions"
    assert chat["status"] == 200
    assert chat["model"] == REQUEST["model"]
    assert chat["provider"] == "kimi_k2"
    assert chat["tool_calls"] == 2
    assert chat["duration_ms"] >= 0
    assert (models["path"], models["status"], models["tool_calls"]) == ("/v1/models", 200, None)


@contextmanager
def toolcall_serve(*args: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, Path]]:
    """`toolcall serve ...` in a subprocess on a free port; yields its URL and stderr file."""
    port = free_port()
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"toolcall-serve-{port}.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "toolcall_middleware.cli", "serve", "--port", str(port), *args],
            stdout=subprocess.DEVNULL,
            stderr=err,
            env={**os.environ, **(env or {})},
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(url + "/healthz", timeout=1).raise_for_status()
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(log.read_text()) from None
                time.sleep(0.05)
        yield url, log
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.unlink(missing_ok=True)


def test_serve_with_no_upstream_repairs_the_bundled_recording() -> None:
    with toolcall_serve() as (url, log):
        body = httpx.post(url + "/v1/chat/completions", json=REQUEST, timeout=10).content
        events = [
            orjson.loads(line[6:]) for line in body.split(b"\n") if line.startswith(b"data: {")
        ]
        calls = [
            c for e in events for ch in e["choices"] for c in ch["delta"].get("tool_calls", [])
        ]
        assert [c["function"]["name"] for c in calls if "id" in c] == ["bash", "bash"]
        assert b"<|tool_call" not in body
        time.sleep(0.2)
        access = [
            orjson.loads(line)
            for line in log.read_text().splitlines()
            if '"toolcall_middleware.access"' in line
        ]
        assert access[-1]["tool_calls"] == 2
        models = httpx.get(url + "/v1/models", timeout=10).json()["data"]
        assert "kimi_k2-reasoning-two-calls" in [m["id"] for m in models]


def test_serve_flags_and_env_reach_the_proxy(upstream: FakeUpstream) -> None:
    env = {"TOOLCALL_UPSTREAM": "http://127.0.0.1:9", "TOOLCALL_ACCESS_LOG": "false"}
    with toolcall_serve("--upstream", upstream.url, env=env) as (url, log):
        response = httpx.get(url + "/v1/models", timeout=10)
        assert response.status_code == 200  # the flag beat the unreachable env upstream
        assert response.headers["x-upstream"] == "models"
        time.sleep(0.2)
        assert "toolcall_middleware.access" not in log.read_text()
