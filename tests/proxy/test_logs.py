"""`toolcall serve`'s JSON log lines."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from processes import serve_command
from servers import serve_in_thread, start_proxy

from helpers import body_app, chunk, request_json, sse, through
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.proxy.logs import JsonFormatter, configure_logging


@pytest.fixture
def restored_logger() -> Iterator[logging.Logger]:
    loggers = [logging.getLogger(name) for name in ("toolcall_middleware", "uvicorn")]
    saved = [(logger.handlers[:], logger.level, logger.propagate) for logger in loggers]
    yield loggers[0]
    for logger, (handlers, level, propagate) in zip(loggers, saved, strict=True):
        logger.handlers[:], logger.level, logger.propagate = handlers, level, propagate


def test_records_are_json_lines_on_stderr_as_it_is_when_they_come(
    restored_logger: logging.Logger, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure_logging("info")
    first, later = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stderr", first)
    logging.getLogger("toolcall_middleware.access").info("request", extra={"fields": {"n": 1}})
    first.close()  # as a test runner closes its capture: later records must still go out
    monkeypatch.setattr("sys.stderr", later)
    logging.getLogger("toolcall_middleware").warning("plain %s", "text")
    lines = [json.loads(line) for line in later.getvalue().splitlines()]
    assert [(r["level"], r["logger"], r.get("message")) for r in lines] == [
        ("warning", "toolcall_middleware", "plain text")
    ]


def test_a_served_process_writes_only_json_lines_uvicorns_own_included(tmp_path: Path) -> None:
    with serve_command(log_dir=tmp_path) as served:
        httpx.get(served.url + "/healthz", timeout=5)
        assert served.stop() == 0
    lines = served.log.read_text().splitlines()
    records = [orjson.loads(line) for line in lines]  # each line is one JSON object
    loggers = {record["logger"] for record in records}
    assert {"toolcall_middleware.serve", "toolcall_middleware.access"} <= loggers
    messages = [r.get("message", "") for r in records if r["logger"].startswith("uvicorn")]
    assert any("Started server process" in m for m in messages), records


BASE_KEYS = ["ts", "level", "logger", "pid", "event", "message"]


@pytest.fixture
def json_lines(restored_logger: logging.Logger) -> Iterator[io.StringIO]:
    """Every ``toolcall_middleware`` record as ``toolcall serve`` writes it, into a buffer."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    restored_logger.handlers[:] = [handler]
    restored_logger.setLevel(logging.INFO)
    restored_logger.propagate = False
    yield out


def records(out: io.StringIO) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in out.getvalue().splitlines()]


def test_a_served_process_logs_the_same_keys_on_every_line_its_pid_and_its_config(
    tmp_path: Path,
) -> None:
    config = tmp_path / "serve.toml"
    config.write_text("metrics = false\n")
    with serve_command("--config", str(config), log_dir=tmp_path) as served:
        httpx.get(served.url + "/healthz", timeout=5)
        pid = served.process.pid
        assert served.stop() == 0
    lines = [orjson.loads(line) for line in served.log.read_text().splitlines()]
    assert lines and all(list(line)[: len(BASE_KEYS)] == BASE_KEYS for line in lines), lines
    assert {line["pid"] for line in lines} == {pid}
    uvicorn_events = [line["event"] for line in lines if line["logger"].startswith("uvicorn")]
    assert "started_server_process" in uvicorn_events
    assert "application_startup_complete" in uvicorn_events
    starting = next(line for line in lines if line["event"] == "starting")
    assert starting["config"] == str(config)
    off = {line["feature"]: line for line in lines if line["event"] == "feature_off"}
    assert off["metrics"]["reason"] == "metrics = false"
    assert off["metrics"]["turn_on"] == "TOOLCALL_METRICS=true"
    assert "TOOLCALL_ADMIN_KEY" in off["debug_capture"]["turn_on"]
    access = next(line for line in lines if line["event"] == "request")
    assert (access["method"], access["path"], access["status"]) == ("GET", "/healthz", 200)


def test_a_fronts_warning_names_the_path_the_client_used(json_lines: io.StringIO) -> None:
    """The Anthropic front skips an event that is not JSON; its warning says which request."""
    upstream = sse(
        chunk({"role": "assistant", "content": ""}),
        "not json at all",
        chunk({"content": "hello"}, "stop"),
        "[DONE]",
    )
    with (
        serve_in_thread(body_app([upstream])) as upstream_url,
        start_proxy(upstream_url) as url,
    ):
        response = httpx.post(
            url + "/v1/messages",
            json={
                "model": "m",
                "max_tokens": 10,
                "stream": True,
                "messages": [{"role": "user", "content": "hi"}],
            },
            timeout=10,
        )
    assert response.status_code == 200 and "hello" in response.text
    warnings = [r for r in records(json_lines) if r["level"] == "warning"]
    assert [(r["logger"], r["method"], r["path"]) for r in warnings] == [
        ("toolcall_middleware.fronts", "POST", "/v1/messages")
    ]
    assert warnings[0]["event"] == "skipping_a_non_json"
    assert "not json at all" in warnings[0]["message"]


@pytest.mark.anyio
async def test_the_debug_level_shows_each_repair(json_lines: io.StringIO) -> None:
    logging.getLogger("toolcall_middleware").setLevel(logging.DEBUG)
    text = (
        "<|tool_calls_section_end|>Let me look. <|tool_calls_section_begin|><|tool_call_begin|>"
        'functions.bash:0<|tool_call_argument_begin|>{"command": "ls"}<|tool_call_end|>'
        "<|tool_calls_section_end|>"
    )
    upstream = sse(chunk({"content": text}, "stop", model="mystery-model"), "[DONE]")
    app = ToolCallMiddleware(body_app([upstream]), metrics=False)
    body = await through(app, request_json(model="mystery-model"))
    assert b'"name":"bash"' in body
    repairs = [r for r in records(json_lines) if r["logger"] == "toolcall_middleware.repair"]
    assert [r["event"] for r in repairs] == [
        "repair_format",
        "repair_call",
        "repair_fallback",  # (strays are counted when the choice ends)
        "repair_done",
    ]
    chosen, call, fallback, done = repairs
    assert (chosen["configured"], chosen["model"], chosen["provider"], chosen["by_family"]) == (
        "auto",
        "mystery-model",
        "sniff",
        False,
    )
    assert (fallback["action"], fallback["stage"]) == ("stray-dropped", "stream")
    assert (call["name"], call["id"], call["index"], call["source"]) == (
        "bash",
        "functions.bash:0",
        0,
        "parsed",
    )
    assert (done["detected"], done["tool_calls"]) == (["kimi_k2"], 1)
    assert all(r["level"] == "debug" for r in repairs)


@pytest.mark.anyio
async def test_the_debug_level_shows_the_format_the_markers_chose_in_the_names_family(
    json_lines: io.StringIO,
) -> None:
    logging.getLogger("toolcall_middleware").setLevel(logging.DEBUG)
    text = (  # Qwen3-Coder XML from a model served as "qwen3", whose name picks Hermes
        "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    upstream = sse(chunk({"content": text}, "stop", model="qwen3"), "[DONE]")
    body = await through(
        ToolCallMiddleware(body_app([upstream]), metrics=False), request_json(model="qwen3")
    )
    assert b'"name":"bash"' in body
    repairs = {r["event"]: r for r in records(json_lines) if r["event"].startswith("repair_")}
    assert (repairs["repair_format"]["provider"], repairs["repair_format"]["by_family"]) == (
        "hermes",
        True,
    )
    assert (repairs["repair_done"]["detected"], repairs["repair_done"]["tool_calls"]) == (
        ["qwen3_coder"],
        1,
    )


@pytest.mark.anyio
async def test_at_info_level_no_repair_is_logged(json_lines: io.StringIO) -> None:
    upstream = sse(chunk({"content": '<tool_call>\n{"name": "bash"}\n</tool_call>'}, "stop"))
    body = await through(
        ToolCallMiddleware(body_app([upstream]), provider="hermes", metrics=False),
        request_json(),
    )
    assert b'"name":"bash"' in body
    assert records(json_lines) == []
