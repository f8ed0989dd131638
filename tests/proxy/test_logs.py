"""`toolcall serve`'s JSON log lines."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
from processes import serve_command

from toolcall_middleware.proxy.logs import configure_logging


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
