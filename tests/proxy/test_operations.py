"""The proxy's own operational endpoints."""

from __future__ import annotations

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
    lines = [line for line in response.text.splitlines()
             if line.startswith("toolcall_tool_calls_total{") and 'provider="kimi_k2"' in line]
    assert lines and float(lines[0].rsplit(" ", 1)[1]) >= 2
