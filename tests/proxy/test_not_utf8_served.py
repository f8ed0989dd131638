"""``toolcall serve`` in front of an upstream that cuts a character between the only two
argument events of a native call: the client gets the bytes as they came, and no ``{}`` after
them (the chat path's side: ``tests/test_not_utf8.py``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fake_upstream import answer_lifespan
from processes import serve_command
from servers import serve_in_thread

from helpers import request_json
from test_not_utf8 import ARGUMENTS, calls_of, ending, native_arguments, native_start


def upstream_app(bodies: list[bytes]) -> Any:
    """An upstream that answers every request with ``bodies``, one body message each."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await answer_lifespan(receive, send)
            return
        while (await receive()).get("more_body"):
            pass
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for body in bodies:
            await send({"type": "http.response.body", "body": body, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    return app


CUT = ARGUMENTS.index("é".encode()) + 1
EVENTS = [native_start(), native_arguments(ARGUMENTS[:CUT]), native_arguments(ARGUMENTS[CUT:])]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log_dir = tmp_path_factory.mktemp("serve")
    with (
        serve_in_thread(upstream_app([*EVENTS, *ending()])) as upstream,
        serve_command("--upstream", upstream, "--provider", "openai", log_dir=log_dir) as process,
    ):
        yield process.url


def test_the_cut_character_goes_out_once_and_no_empty_object_follows(served: str) -> None:
    doc = json.loads(request_json(model="m"))
    with httpx.stream("POST", served + "/v1/chat/completions", json=doc, timeout=20) as response:
        assert response.status_code == 200
        body = response.read()
    assert calls_of(body) == [("bash", ARGUMENTS)]
    assert EVENTS[1] in body and EVENTS[2] in body  # byte for byte
    assert body.endswith(b"data: [DONE]\n\n")
