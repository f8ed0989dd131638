"""The response store's limits through ``ResponsesMiddleware``, driven by the official openai SDK
and by real ASGI messages: expiry, the size cap, when the terminal event leaves, a failed
response, and a store that fails in the middle of a request."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import anyio
import openai
import pytest

from anthropic_api.helpers import chunk, drive, stream_reply
from toolcall_middleware.fronts.responses.store import owner_of
from toolcall_middleware.fronts.responses.store.sqlite_store import SQLiteStore

from .helpers import check_events, parse_sse
from .store_helpers import SHELL, FlakyStore, answer_turn, kimi_call_turn, stack
from .test_store import MODEL, OUTPUT, client, request

pytestmark = pytest.mark.anyio


async def test_expired_responses_are_gone_with_the_api_errors(tmp_path: Path) -> None:
    s = stack(tmp_path, kimi_call_turn(), store_ttl=0.3)
    sdk = client(s.app)
    first = await sdk.responses.create(model=MODEL, input="list files", tools=[SHELL])
    assert (await sdk.responses.retrieve(first.id)).id == first.id
    await anyio.sleep(0.4)
    with pytest.raises(openai.NotFoundError):
        await sdk.responses.retrieve(first.id)
    with pytest.raises(openai.BadRequestError) as caught:
        await sdk.responses.create(model=MODEL, previous_response_id=first.id, input=[OUTPUT])
    assert caught.value.code == "previous_response_not_found"
    with pytest.raises(openai.NotFoundError):
        await sdk.responses.create(
            model=MODEL, input=[{"type": "item_reference", "id": first.output[0].id}]
        )


async def test_the_size_cap_evicts_the_oldest_and_refuses_what_cannot_fit(tmp_path: Path) -> None:
    probe = stack(tmp_path / "probe", answer_turn("x" * 100))
    one = await client(probe.app).responses.create(model=MODEL, input="hi")
    inner = probe.app.keeper
    assert inner is not None
    entry = await inner.store.get(one.id, _owner("sk-one"))
    assert entry is not None
    size = len(entry.response) + len(entry.items)
    # Room for two such entries: the third evicts the first.
    s = stack(tmp_path, *(answer_turn("x" * 100) for _ in range(3)), store_max_bytes=2 * size + 50)
    sdk = client(s.app)
    made = [await sdk.responses.create(model=MODEL, input="hi") for _ in range(3)]
    assert all(r.store for r in made)
    with pytest.raises(openai.NotFoundError):
        await sdk.responses.retrieve(made[0].id)
    with pytest.raises(openai.BadRequestError):
        await sdk.responses.create(model=MODEL, previous_response_id=made[0].id, input="x")
    assert [(await sdk.responses.retrieve(r.id)).id for r in made[1:]] == [r.id for r in made[1:]]
    # One response larger than the whole store: it still streams, marked not stored.
    s.upstream.replies.append(answer_turn("y" * (3 * size)))
    async with sdk.responses.stream(model=MODEL, input="hi") as events:
        big = await events.get_final_response()
    assert big.status == "completed" and big.store is False
    assert big.output_text == "y" * (3 * size)
    assert s.failures("write") == 1
    with pytest.raises(openai.NotFoundError):
        await sdk.responses.retrieve(big.id)


def _owner(key: str) -> str:
    return owner_of([(b"authorization", f"Bearer {key}".encode())])


async def test_the_terminal_event_leaves_once_the_response_is_stored(tmp_path: Path) -> None:
    """A client that continues the moment it has ``response.completed`` (on any worker) finds
    the response: the terminal event waits for the write."""
    flaky = FlakyStore(SQLiteStore(tmp_path / "r.sqlite3", ttl=60, max_bytes=10**6))
    s = stack(tmp_path, kimi_call_turn(), response_store=flaky)

    async def send(message: Any) -> None:
        flaky.sent.extend(message.get("body", b""))

    await drive(
        s.app,
        {"model": MODEL, "input": "x", "tools": [SHELL], "stream": True},
        send,
        path="/v1/responses",
    )
    (before_write,) = flaky.sent_at_write
    assert b"response.output_item.done" in before_write
    assert b"response.completed" not in before_write
    final = check_events(parse_sse(bytes(flaky.sent)))
    assert final["store"] is True and final["status"] == "completed"
    assert await flaky.inner.get(final["id"], owner_of([])) is not None


@pytest.mark.parametrize("failure", ["fail", "hang"])
async def test_a_store_that_fails_mid_request_never_takes_the_stream_down(
    tmp_path: Path, failure: str, caplog: pytest.LogCaptureFixture
) -> None:
    flaky = FlakyStore(SQLiteStore(tmp_path / "r.sqlite3", ttl=60, max_bytes=10**6))
    s = stack(tmp_path, kimi_call_turn(), kimi_call_turn(), answer_turn(), response_store=flaky)
    assert s.app.keeper is not None
    s.app.keeper.timeout = 0.3  # (a hung write is given up after this)
    sdk = client(s.app)
    stored = await sdk.responses.create(model=MODEL, input="list files", tools=[SHELL])
    getattr(flaky, failure).add("write")  # the store goes down: the next write fails
    caplog.set_level(logging.WARNING, "toolcall_middleware.responses")
    with anyio.fail_after(5):
        async with sdk.responses.stream(model=MODEL, input="list files", tools=[SHELL]) as events:
            kinds = [event.type async for event in events]
            unstored = await events.get_final_response()
    assert kinds[-1] == "response.completed"
    assert unstored.status == "completed" and unstored.store is False
    assert [o.type for o in unstored.output] == ["reasoning", "function_call"]
    assert s.failures("write") == 1
    (record,) = [r for r in caplog.records if "response store write" in r.getMessage()]
    assert record.fields["response_id"] == unstored.id  # type: ignore[attr-defined]
    # Reads fail too now: a request that needs the store gets a 503 in the API's shape...
    getattr(flaky, failure).add("read")
    with anyio.fail_after(5), pytest.raises(openai.InternalServerError) as caught:
        await sdk.responses.create(model=MODEL, previous_response_id=stored.id, input=[OUTPUT])
    assert caught.value.status_code == 503 and caught.value.code == "store_unavailable"
    assert s.failures("read") == 1
    with pytest.raises(openai.InternalServerError):
        await sdk.responses.retrieve(stored.id)
    # ...and one that needs nothing stored is answered all the same.
    with anyio.fail_after(5):
        answered = await sdk.responses.create(model=MODEL, input="hi", store=False)
    assert answered.output_text == "There is a.txt"
    # Back up: what was stored before is still there.
    flaky.fail.clear()
    flaky.hang.clear()
    assert (await sdk.responses.retrieve(stored.id)).id == stored.id


async def test_a_failed_response_is_not_stored(tmp_path: Path) -> None:
    broken = stream_reply([chunk({"content": "partial"})], done=False, raise_after=OSError("gone"))
    s = stack(tmp_path, broken)
    response = await request(
        s.app, {"model": MODEL, "input": "hi", "stream": True}, "/v1/responses"
    )
    final = check_events(parse_sse(response.body))
    assert final["status"] == "failed" and final["store"] is False
    assert not (tmp_path / "responses.sqlite3").exists()  # no write was even tried
    with pytest.raises(openai.NotFoundError):
        await client(s.app).responses.retrieve(final["id"])
