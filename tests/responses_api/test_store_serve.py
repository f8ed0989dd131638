"""The response store through a real ``toolcall serve``: the openai SDK's two-turn tool loop by
``previous_response_id`` on Kimi, Qwen3-Coder and Hermes markup; ``--workers 2`` with the turns
on different workers (one SQLite file); two replicas sharing a real ``redis-server``, which then
goes down under them."""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import openai
import pytest

from toolcall_middleware.asgi import Message, Receive, Scope, Send

from .store_helpers import redis_server

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "proxy"))  # (its helpers import each other by name)
from processes import serve_command  # noqa: E402
from servers import serve_in_thread  # noqa: E402

sys.path.insert(0, str(ROOT / "scripts" / "e2e"))  # (the scripts import each other by name)
_spec = importlib.util.spec_from_file_location("e2e_upstream", ROOT / "scripts/e2e/upstream.py")
assert _spec is not None and _spec.loader is not None
e2e_upstream = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(e2e_upstream)

MARK = "E2E_TOOL_RAN"
COMMAND = f"echo {MARK}"
#: Model names ``provider="auto"`` maps to each markup format (as the end-to-end runs use).
MODELS = {"kimi": "kimi-k2-instruct", "qwen3_coder": "qwen3-coder-30b", "hermes": "qwen2.5-72b"}
SHELL: Any = [
    {
        "type": "function",
        "name": "shell",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    }
]
PROMPT = "Run the command the task needs, then tell me what it printed."


class ScriptedModels:
    """The end-to-end runs' scripted upstream, one per markup format, chosen by the model name;
    every chat request it gets is kept."""

    def __init__(self) -> None:
        self.formats = {
            model: e2e_upstream.ScriptedUpstream(fmt, COMMAND, preamble="Let me run it.\n")
            for fmt, model in MODELS.items()
        }
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        import json

        request = json.loads(body)
        with self.lock:
            self.requests.append(request)
        pending = [{"type": "http.request", "body": body, "more_body": False}]

        async def replay() -> Message:
            return pending.pop() if pending else {"type": "http.disconnect"}

        await self.formats[request["model"]](scope, replay, send)


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[str, ScriptedModels]]:
    models = ScriptedModels()
    with serve_in_thread(models) as url:
        yield url, models


def sdk(url: str, key: str = "sk-e2e", http_client: Any = None) -> openai.OpenAI:
    return openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0, http_client=http_client)


def tool_loop(
    first_client: openai.OpenAI, second_client: openai.OpenAI, model: str
) -> tuple[Any, Any]:
    """Turn one streamed on one client, turn two by ``previous_response_id`` on the other."""
    with first_client.responses.stream(model=model, input=PROMPT, tools=SHELL) as events:
        first = events.get_final_response()
    (call,) = [item for item in first.output if item.type == "function_call"]
    assert call.name == "shell" and MARK in call.arguments
    second = second_client.responses.create(
        model=model,
        tools=SHELL,
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": f"{MARK}\n"}],
    )
    return first, second


def check_second_turn(models: ScriptedModels, first: Any, second: Any, fmt: str) -> None:
    assert second.status == "completed" and second.previous_response_id == first.id
    assert second.output_text == f"FINAL ANSWER: the command printed: {MARK}"
    chat = next(r for r in reversed(models.requests) if r["model"] == MODELS[fmt])["messages"]
    assert [m["role"] for m in chat] == ["user", "assistant", "tool"]
    assistant = chat[1]
    said = assistant.get("reasoning_content") if fmt == "kimi" else assistant["content"]
    assert said.startswith(("I will run the command.", "Let me run it."))
    assert assistant["tool_calls"][0]["id"] == chat[2]["tool_call_id"]


def test_the_sdk_tool_loop_by_previous_response_id_on_every_markup(
    upstream: tuple[str, ScriptedModels], tmp_path: Path
) -> None:
    url, models = upstream
    env = {"TOOLCALL_RESPONSES_STORE": f"sqlite:{tmp_path / 'responses.sqlite3'}"}
    with serve_command("--upstream", url, env=env, log_dir=tmp_path) as served:
        client = sdk(served.url)
        for fmt, model in MODELS.items():
            first, second = tool_loop(client, client, model)
            check_second_turn(models, first, second, fmt)
            assert client.responses.retrieve(second.id).output_text == second.output_text
        assert served.stop() == 0


def worker_clients(url: str) -> dict[int, httpx2.Client]:
    """One kept-open connection to each of two workers (the debug endpoint names the worker)."""
    found: dict[int, httpx2.Client] = {}
    for _ in range(200):
        client = httpx2.Client(base_url=url, timeout=30)
        pid = client.get("/debug/tool-calls", headers={"x-admin-key": "k"}).json()["worker_pid"]
        if pid in found:
            client.close()
        else:
            found[pid] = client
        if len(found) == 2:
            return found
    raise AssertionError("the connections all reached one worker")


def test_turns_on_different_workers_share_the_store(
    upstream: tuple[str, ScriptedModels], tmp_path: Path
) -> None:
    url, models = upstream
    env = {
        "TOOLCALL_ADMIN_KEY": "k",
        "TOOLCALL_RESPONSES_STORE": f"sqlite:{tmp_path / 'responses.sqlite3'}",
    }
    with serve_command("--upstream", url, "--workers", "2", env=env, log_dir=tmp_path) as served:
        one, two = worker_clients(served.url).values()
        a, b = sdk(served.url, http_client=one), sdk(served.url, http_client=two)
        first, second = tool_loop(a, b, MODELS["kimi"])  # turn one on A, turn two on B
        check_second_turn(models, first, second, "kimi")
        assert b.responses.retrieve(first.id).id == first.id
        assert [i.type for i in b.responses.input_items.list(second.id)] == ["function_call_output"]
        a.responses.delete(first.id)
        with pytest.raises(openai.NotFoundError):
            b.responses.retrieve(first.id)
        one.close()
        two.close()
        assert served.stop() == 0


def store_failures(metrics_text: str) -> float:
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in metrics_text.splitlines()
        if line.startswith(
            'toolcall_responses_store_failures_total{backend="redis",operation="write"}'
        )
    )


def test_replicas_share_a_redis_and_outlive_it(
    upstream: tuple[str, ScriptedModels], tmp_path: Path
) -> None:
    url, models = upstream
    with redis_server() as redis:
        env = {"TOOLCALL_RESPONSES_STORE": redis.url}
        with (
            serve_command("--upstream", url, env=env, log_dir=tmp_path) as replica_a,
            serve_command("--upstream", url, env=env, log_dir=tmp_path) as replica_b,
        ):
            a, b = sdk(replica_a.url), sdk(replica_b.url)
            for fmt in ("hermes", "qwen3_coder"):
                first, second = tool_loop(a, b, MODELS[fmt])  # a load balancer's two turns
                check_second_turn(models, first, second, fmt)
            assert a.responses.retrieve(second.id).id == second.id
            with pytest.raises(openai.NotFoundError):  # another key owns nothing there
                sdk(replica_a.url, key="sk-other").responses.retrieve(second.id)
            redis.stop()  # the store goes down under both replicas
            with a.responses.stream(model=MODELS["hermes"], input=PROMPT, tools=SHELL) as events:
                kinds = [event.type for event in events]
                unstored = events.get_final_response()
            assert kinds[-1] == "response.completed" and unstored.status == "completed"
            assert unstored.model_dump()["store"] is False
            assert store_failures(httpx.get(replica_a.url + "/metrics").text) == 1
            with pytest.raises(openai.InternalServerError) as caught:
                b.responses.create(model=MODELS["hermes"], previous_response_id=first.id, input="x")
            assert caught.value.status_code == 503 and caught.value.code == "store_unavailable"
            assert "response_store_failed" in replica_a.log.read_text()
            assert replica_a.stop() == 0 and replica_b.stop() == 0
