"""The proxy's own operational endpoints."""

from __future__ import annotations

import socket

import httpx
import openai
from servers import start_proxy


def test_metrics_are_served_by_the_proxy_and_count_tool_calls() -> None:
    with start_proxy(None, replay_pace=0) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key="x", max_retries=0)
        with client.chat.completions.stream(
            model="kimi_k2-reasoning-two-calls",
            messages=[{"role": "user", "content": "asm headers?"}],
            tools=[{"type": "function", "function": {"name": "bash"}}],
        ) as stream:
            final = stream.get_final_completion()
        assert len(final.choices[0].message.tool_calls or []) == 2
        response = httpx.get(f"{url}/metrics", timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    lines = [
        line
        for line in response.text.splitlines()
        if line.startswith("toolcall_tool_calls_total{") and 'provider="kimi_k2"' in line
    ]
    assert lines and float(lines[0].rsplit(" ", 1)[1]) >= 2


def upstream_failures(metrics_text: str, code: str) -> float:
    prefix = f'toolcall_upstream_failures_total{{code="{code}"}} '
    return sum(
        float(line.removeprefix(prefix))
        for line in metrics_text.splitlines()
        if line.startswith(prefix)
    )


def test_upstream_failures_are_counted_by_the_code_the_client_got() -> None:
    # Nothing listens on the upstream port: every request is a 502 upstream_unreachable.
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
    with start_proxy(f"http://127.0.0.1:{port}") as url:
        before = upstream_failures(
            httpx.get(f"{url}/metrics", timeout=10).text, "upstream_unreachable"
        )
        statuses = [
            httpx.post(f"{url}/v1/chat/completions", json={"model": "m"}, timeout=10).status_code
            for _ in range(3)
        ]
        after = upstream_failures(
            httpx.get(f"{url}/metrics", timeout=10).text, "upstream_unreachable"
        )
    assert statuses == [502, 502, 502]
    assert after - before == 3
