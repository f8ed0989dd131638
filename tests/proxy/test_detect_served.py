"""A real ``toolcall serve`` on its defaults (``provider=auto``) repairs the hosted-Qwen session
whose calls are tags named after the offered tools, read by the official openai SDK."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest
from fake_upstream import FakeUpstream
from processes import serve_command
from servers import serve_in_thread

from toolcall_middleware.replay import Recording, find_recording

RECORDINGS = ["qwen_xml-content-calls", "qwen_xml-reasoning-calls", "qwen_xml-nonstream"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    upstream = FakeUpstream()
    with (
        serve_in_thread(upstream) as url,
        serve_command("--upstream", url, log_dir=tmp_path_factory.mktemp("serve")) as process,
    ):
        yield process.url


@pytest.mark.parametrize("name", RECORDINGS)
def test_the_tool_tag_session_comes_out_repaired_under_auto(served: str, name: str) -> None:
    recording = Recording.load(find_recording(name))
    request, expected = recording.request, dict(recording.expected or {})
    assert "provider" not in request  # nothing but the model name and the stream decides
    client = openai.OpenAI(base_url=served + "/v1", api_key="sk-test", max_retries=0)
    arguments: dict[str, Any] = {
        "model": request["model"],
        "messages": request["messages"],
        "tools": request["tools"],
        "extra_headers": {"x-recording": name},
    }
    if request.get("stream"):
        with client.chat.completions.stream(**arguments) as stream:
            for _ in stream:
                pass
            completion = stream.get_final_completion()
    else:
        completion = client.chat.completions.create(**arguments)
    choice = completion.choices[0]
    message = choice.message
    got = [(c.function.name, c.function.arguments) for c in message.tool_calls or ()]
    assert got == [(c["name"], c["arguments"]) for c in expected["tool_calls"]]
    assert (message.content or "", choice.finish_reason) == (
        expected.get("content") or "",
        "tool_calls",
    )
    extra = message.model_extra or {}
    reasoning = extra.get("reasoning_content", extra.get("reasoning"))
    if expected.get("reasoning") is not None:
        assert reasoning == expected["reasoning"]
    for text in (message.content or "", reasoning or ""):
        assert "</read>" not in text and "<filePath>" not in text
