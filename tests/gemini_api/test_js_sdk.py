"""The JS ``@google/genai`` SDK, the version gemini-cli 0.61 pins (1.30.0, from npm), reads the
front's responses over a real uvicorn server: every recording with calls, both modes of
ToolCallMiddleware, streamed and whole, and a stream that fails in the middle.

The SDK is installed once into the end-to-end cache (``.e2e-cache/``, or
``$TOOLCALL_E2E_CACHE``); node and npm are on every machine this project runs on."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from proxy.servers import serve_in_thread
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.asgi import Receive, Scope, Send
from toolcall_middleware.fronts.gemini import GeminiMiddleware
from toolcall_middleware.replay import Recording, logs_dir, recording_app
from toolcall_middleware.request import read_body, replay_receive

from .test_recordings import MODES, WITH_CALLS, arguments, expectation, id_matches

GENAI = ("@google/genai", "1.30.0")
ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("TOOLCALL_E2E_CACHE", ROOT / ".e2e-cache"))
READER = Path(__file__).parent / "js" / "read_streams.cjs"
FINISH = {"tool_calls": "STOP", "stop": "STOP", "length": "MAX_TOKENS"}
BROKEN = "broken-midstream"


def genai_js() -> Path:
    """Where the pinned SDK is installed (installing it the first time)."""
    name, version = GENAI
    prefix = CACHE / f"{name.replace('/', '_')}-{version}"
    if not (prefix / "node_modules" / name / "package.json").is_file():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
                str(prefix),
                f"{name}@{version}",
            ],
            check=True,
            timeout=600,
        )
    return prefix


class Recordings:
    """The upstream: model ``<recording>@<mode>`` is that recording through ToolCallMiddleware
    in that mode (asked for with the recording's own model name, so formats are detected as
    in use); ``broken-midstream`` sends some text, then an error event."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body, early = await read_body(receive)
        request = orjson.loads(body)
        name, _, mode = request["model"].partition("@")
        if name == BROKEN:
            head = {"choices": [{"index": 0, "delta": {"content": "par"}}]}
            error = {"error": {"message": "upstream crashed", "type": "server_error"}}
            recording = Recording.from_capture(
                BROKEN, b"".join(b"data: " + orjson.dumps(doc) + b"\n\n" for doc in (head, error))
            )
            await recording_app(recording)(scope, replay_receive(body, early, receive), send)
            return
        recording = Recording.load(logs_dir() / f"{name}.log")
        request["model"] = recording.request["model"]
        app = ToolCallMiddleware(
            recording_app(recording),
            provider=recording.meta.get("provider"),
            mode=mode,
            metrics=False,
        )
        await app(scope, replay_receive(orjson.dumps(request), early, receive), send)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serve_in_thread(GeminiMiddleware(Recordings()), lifespan="off") as url:
        yield url


def tools_of(recording: Recording) -> list[dict[str, Any]]:
    return [
        {
            "functionDeclarations": [
                {
                    "name": t["function"]["name"],
                    "parametersJsonSchema": t["function"].get("parameters") or {"type": "object"},
                }
                for t in recording.request.get("tools", ())
            ]
        }
    ]


def read_with_js(base_url: str, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    env = {**os.environ, "GENAI_DIR": str(genai_js())}
    done = subprocess.run(
        ["node", str(READER), base_url],
        input=orjson.dumps(cases),
        capture_output=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    return [orjson.loads(line) for line in done.stdout.splitlines()]


def test_recordings_read_by_the_js_sdk(base_url: str) -> None:
    cases = [
        {
            "model": f"{p.stem}@{mode}",
            "stream": stream,
            "version": version,
            "tools": tools_of(Recording.load(p)),
        }
        for p in WITH_CALLS
        for mode in MODES
        for stream in (True, False)
        for version in (["v1beta", "v1"] if stream else ["v1beta"])
    ]
    results = read_with_js(base_url, cases)
    assert len(results) == len(cases)
    for seen in results:
        name, _, mode = seen["model"].partition("@")
        recording = Recording.load(logs_dir() / f"{name}.log")
        expected = expectation(recording, mode)
        where = f"{seen['model']} stream={seen['stream']}"
        assert seen["error"] is None, (where, seen["error"])
        assert seen["text"] == (expected.get("content") or ""), where
        assert seen["thoughts"] == (expected.get("reasoning") or ""), where
        assert seen["finishReason"] == FINISH[expected["finish_reason"]], where
        assert seen["usage"]["totalTokenCount"] > 0, where
        calls = seen["calls"]
        assert [c["name"] for c in calls] == [c["name"] for c in expected["tool_calls"]], where
        for call, want in zip(calls, expected["tool_calls"], strict=True):
            assert id_matches(want.get("id"), call["id"]), (where, call)
            if expected["finish_reason"] != "length":
                assert call["args"] == arguments(want["arguments"]), (where, call)


def test_a_midstream_error_raises_in_the_js_sdk(base_url: str) -> None:
    (seen,) = read_with_js(
        base_url, [{"model": BROKEN, "stream": True, "version": "v1beta", "tools": []}]
    )
    assert seen["text"] == "par"
    assert seen["error"]["name"] == "ApiError" and seen["error"]["status"] == 500
    assert "upstream crashed" in seen["error"]["message"]
