"""The response store through ``ResponsesMiddleware``, driven by the official openai SDK and by
real ASGI messages: ``previous_response_id``, ``item_reference``, retrieval, ``store: false``,
ownership, the store turned off, its options (its limits: ``test_store_limits.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import openai
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anthropic_api.helpers import ScriptedApp
from anthropic_api.helpers import request as asgi_request
from toolcall_middleware import ResponsesMiddleware
from toolcall_middleware.fronts.responses.store.sqlite_store import SQLiteStore

from .helpers import CheckedApp
from .store_helpers import (
    CALL_ID,
    SHELL,
    answer_turn,
    kimi_call_turn,
    stack,
)

pytestmark = pytest.mark.anyio

MODEL = "kimi-k2"
OUTPUT = {"type": "function_call_output", "call_id": CALL_ID, "output": "a.txt"}


def client(app: Any, key: str = "sk-one", **headers: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key=key,
        base_url="http://test/v1",
        max_retries=0,
        default_headers=headers or None,
        http_client=httpx2.AsyncClient(transport=httpx2.ASGITransport(app=CheckedApp(app))),
    )


async def request(app: Any, body: Any, path: str, **kw: Any) -> Any:
    return await asgi_request(app, body, path, checked=CheckedApp, **kw)


def second_turn_chat(upstream: ScriptedApp) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = upstream.upstream_bodies[1]["messages"]
    return messages


EXPECTED_SECOND_TURN = [
    {"role": "user", "content": "list files"},
    {
        "role": "assistant",
        "content": None,
        "reasoning_content": "Run it. ",
        "tool_calls": [
            {
                "id": CALL_ID,
                "type": "function",
                "function": {"name": "shell", "arguments": '{"cmd": "ls"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": CALL_ID, "content": "a.txt"},
]


@pytest.mark.parametrize("stream", [True, False])
async def test_previous_response_id_continues_the_tool_loop(tmp_path: Path, stream: bool) -> None:
    s = stack(tmp_path, kimi_call_turn(), answer_turn())
    sdk = client(s.app)
    async with sdk.responses.stream(
        model=MODEL, input="list files", tools=[SHELL], instructions="Be brief."
    ) as events:
        first = await events.get_final_response()
    assert first.store is True and first.output[-1].type == "function_call"
    second = (
        await sdk.responses.create(
            model=MODEL, tools=[SHELL], previous_response_id=first.id, input=[OUTPUT], stream=False
        )
        if not stream
        else None
    )
    if stream:
        async with sdk.responses.stream(
            model=MODEL, tools=[SHELL], previous_response_id=first.id, input=[OUTPUT]
        ) as events:
            second = await events.get_final_response()
    assert second is not None
    assert second.output_text == "There is a.txt"
    assert second.previous_response_id == first.id and second.store is True
    # The whole conversation went upstream; instructions are not carried over (as in the API).
    assert second_turn_chat(s.upstream) == EXPECTED_SECOND_TURN
    # A third turn continues the second: its context is the whole first exchange.
    s.upstream.replies.append(answer_turn("Done."))
    third = await sdk.responses.create(model=MODEL, previous_response_id=second.id, input="thanks")
    assert third.output_text == "Done."
    roles = [m["role"] for m in s.upstream.upstream_bodies[2]["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant", "user"]


async def test_item_references_resolve_to_the_stored_items(tmp_path: Path) -> None:
    """What the Vercel AI SDK sends with ``store`` on: the earlier reasoning as a reference, the
    call itself, its output."""
    s = stack(tmp_path, kimi_call_turn(), answer_turn())
    sdk = client(s.app)
    first = await sdk.responses.create(model=MODEL, input="list files", tools=[SHELL])
    reasoning, call = first.output
    assert reasoning.type == "reasoning" and call.type == "function_call"
    second = await sdk.responses.create(
        model=MODEL,
        tools=[SHELL],
        input=[
            {"role": "user", "content": "list files"},
            {"type": "item_reference", "id": reasoning.id},
            {
                "type": "function_call",
                "call_id": CALL_ID,
                "name": "shell",
                "arguments": call.arguments,
            },
            OUTPUT,
        ],
    )
    assert second.output_text == "There is a.txt" and second.previous_response_id is None
    assert second_turn_chat(s.upstream) == EXPECTED_SECOND_TURN
    # The call and the user's message are stored items too.
    s.upstream.replies.append(answer_turn("Again."))
    items = [i async for i in sdk.responses.input_items.list(first.id)]
    third = await sdk.responses.create(
        model=MODEL,
        tools=[SHELL],
        input=[
            {"type": "item_reference", "id": items[0].id},
            {"id": reasoning.id},  # (the API's type is optional on a reference)
            {"type": "item_reference", "id": call.id},
            OUTPUT,
        ],
    )
    assert third.output_text == "Again."
    assert s.upstream.upstream_bodies[2]["messages"] == EXPECTED_SECOND_TURN


async def test_retrieve_list_and_delete(tmp_path: Path) -> None:
    s = stack(tmp_path, kimi_call_turn(), answer_turn())
    sdk = client(s.app)
    first = await sdk.responses.create(model=MODEL, input="list files", tools=[SHELL])
    second = await sdk.responses.create(
        model=MODEL,
        previous_response_id=first.id,
        input=[OUTPUT, {"role": "user", "content": [{"type": "input_text", "text": "and?"}]}],
        tools=[SHELL],
    )
    assert (await sdk.responses.retrieve(first.id)).model_dump() == first.model_dump()
    assert (await sdk.responses.retrieve(second.id)).model_dump() == second.model_dump()
    # input_items: the request's own items (not the conversation it continued), newest first.
    page = await sdk.responses.input_items.list(second.id)
    assert [i.type for i in page.data] == ["message", "function_call_output"]
    assert page.data[1].call_id == CALL_ID and page.has_more is False
    raw = await sdk.get(
        f"/responses/{second.id}/input_items",
        options={"params": {"order": "asc", "limit": 1}},
        cast_to=httpx2.Response,
    )
    body = raw.json()
    assert body["object"] == "list" and body["has_more"] is True
    assert [i["type"] for i in body["data"]] == ["function_call_output"]
    assert body["first_id"] == body["last_id"] == body["data"][0]["id"]
    all_asc = [i.id async for i in sdk.responses.input_items.list(second.id, order="asc", limit=1)]
    assert all_asc == [page.data[1].id, page.data[0].id]  # the SDK pages with ``after``
    # DELETE answers the API's body, then the response is gone everywhere.
    deleted = await sdk.delete(f"/responses/{first.id}", cast_to=httpx2.Response)
    assert deleted.json() == {"id": first.id, "object": "response.deleted", "deleted": True}
    for call in (
        sdk.responses.retrieve(first.id),
        sdk.responses.delete(first.id),
        sdk.responses.input_items.list(first.id),
    ):
        with pytest.raises(openai.NotFoundError, match=f"Response with id '{first.id}' not found"):
            await call
    with pytest.raises(openai.BadRequestError) as caught:
        await sdk.responses.create(model=MODEL, previous_response_id=first.id, input=[OUTPUT])
    assert caught.value.code == "previous_response_not_found"
    assert (await sdk.responses.retrieve(second.id)).id == second.id  # its own entry remains


async def test_listing_parameters_are_checked(tmp_path: Path) -> None:
    s = stack(tmp_path, answer_turn())
    sdk = client(s.app)
    first = await sdk.responses.create(model=MODEL, input="hi")
    for params, name in (
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"order": "up"}, "order"),
        ({"after": "msg_nope"}, "after"),
    ):
        with pytest.raises(openai.BadRequestError) as caught:
            await sdk.get(
                f"/responses/{first.id}/input_items", options={"params": params}, cast_to=object
            )
        assert caught.value.param == name
    with pytest.raises(openai.BadRequestError):
        await sdk.get(
            f"/responses/{first.id}", options={"params": {"stream": "true"}}, cast_to=object
        )


async def test_unknown_ids_get_the_api_errors_and_nothing_goes_upstream(tmp_path: Path) -> None:
    s = stack(tmp_path)
    sdk = client(s.app)
    with pytest.raises(openai.BadRequestError) as bad:
        await sdk.responses.create(model=MODEL, previous_response_id="resp_" + "0" * 24, input="x")
    assert bad.value.code == "previous_response_not_found"
    assert bad.value.param == "previous_response_id"
    assert "expired, was evicted or deleted" in bad.value.message
    for item_id in ("rs_" + "1" * 24 + "_0", "msg_client_own_id"):
        with pytest.raises(openai.NotFoundError) as gone:
            await sdk.responses.create(
                model=MODEL, input=[{"type": "item_reference", "id": item_id}]
            )
        assert gone.value.param == "input" and f"Item with id '{item_id}'" in gone.value.message
    with pytest.raises(openai.BadRequestError) as empty:
        await sdk.responses.create(model=MODEL, previous_response_id="", input="x")
    assert empty.value.param == "previous_response_id"
    assert s.upstream.calls == []


async def test_store_false_writes_nothing_and_says_so(tmp_path: Path) -> None:
    database = tmp_path / "responses.sqlite3"
    s = stack(tmp_path, kimi_call_turn(), kimi_call_turn(), answer_turn())
    sdk = client(s.app)
    async with sdk.responses.stream(
        model=MODEL, input="list files", tools=[SHELL], store=False
    ) as events:
        first = await events.get_final_response()
    assert first.store is False
    assert not database.exists()  # nothing was ever written (nor read)
    with pytest.raises(openai.NotFoundError):
        await sdk.responses.retrieve(first.id)
    with pytest.raises(openai.BadRequestError):
        await sdk.responses.create(model=MODEL, previous_response_id=first.id, input=[OUTPUT])
    # A stored response may be continued by a request that is not stored itself.
    stored = await sdk.responses.create(model=MODEL, input="list files", tools=[SHELL])
    second = await sdk.responses.create(
        model=MODEL, previous_response_id=stored.id, input=[OUTPUT], store=False
    )
    assert second.store is False and second.previous_response_id == stored.id
    with pytest.raises(openai.NotFoundError):
        await sdk.responses.retrieve(second.id)
    with pytest.raises(openai.BadRequestError) as caught:
        await sdk.responses.create(model=MODEL, input="x", store="yes")  # type: ignore[arg-type]
    assert caught.value.param == "store"


async def test_only_the_same_credentials_read_or_continue(tmp_path: Path) -> None:
    s = stack(tmp_path, kimi_call_turn(), answer_turn(), answer_turn())
    mine, theirs = client(s.app, "sk-one"), client(s.app, "sk-two")
    first = await mine.responses.create(model=MODEL, input="list files", tools=[SHELL])
    for call in (
        theirs.responses.retrieve(first.id),
        theirs.responses.input_items.list(first.id),
        theirs.responses.delete(first.id),
    ):
        with pytest.raises(openai.NotFoundError):
            await call
    with pytest.raises(openai.BadRequestError) as caught:
        await theirs.responses.create(model=MODEL, previous_response_id=first.id, input=[OUTPUT])
    assert caught.value.code == "previous_response_not_found"
    with pytest.raises(openai.NotFoundError):
        await theirs.responses.create(
            model=MODEL, input=[{"type": "item_reference", "id": first.output[0].id}]
        )
    # The owner still has it; the same key sent as x-api-key is the same owner.
    assert (await mine.responses.retrieve(first.id)).id == first.id
    same = openai.AsyncOpenAI(
        api_key="unused",
        base_url="http://test/v1",
        max_retries=0,
        http_client=httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=s.app),
            headers={"x-api-key": "sk-one"},
            event_hooks={"request": [_drop_authorization]},
        ),
    )
    assert (await same.responses.retrieve(first.id)).id == first.id
    second = await mine.responses.create(
        model=MODEL, previous_response_id=first.id, input=[OUTPUT], tools=[SHELL]
    )
    assert second.output_text == "There is a.txt"
    # The secret itself is nowhere in the file.
    assert b"sk-one" not in (tmp_path / "responses.sqlite3").read_bytes()


async def _drop_authorization(request: httpx2.Request) -> None:
    del request.headers["authorization"]


async def test_a_continued_request_names_its_own_items_in_errors(tmp_path: Path) -> None:
    s = stack(tmp_path, kimi_call_turn())
    sdk = client(s.app)
    first = await sdk.responses.create(model=MODEL, input="list files", tools=[SHELL])
    with pytest.raises(openai.BadRequestError) as caught:
        await sdk.responses.create(
            model=MODEL,
            previous_response_id=first.id,
            input=[OUTPUT, {"type": "function_call_output", "call_id": "nope", "output": ""}],
        )
    assert caught.value.param == "input[1].call_id"
    error: Any = caught.value.body
    assert error["message"].startswith("input[1].call_id: no function call with call_id nope")
    with pytest.raises(openai.BadRequestError) as caught:  # the stored call is not answered
        await sdk.responses.create(model=MODEL, previous_response_id=first.id, input="go on")
    error = caught.value.body
    assert f"without their output before input[0]: {CALL_ID}" in error["message"]
    assert len(s.upstream.calls) == 1


async def test_with_the_store_off_nothing_is_kept(tmp_path: Path) -> None:
    s = stack(tmp_path, answer_turn(), store="off")
    assert s.app.keeper is None
    sdk = client(s.app)
    response = await sdk.responses.create(model=MODEL, input="hi")
    assert response.store is False
    with pytest.raises(openai.NotFoundError, match="store is off"):
        await sdk.responses.retrieve(response.id)
    with pytest.raises(openai.BadRequestError) as caught:
        await sdk.responses.create(model=MODEL, previous_response_id=response.id, input="x")
    assert caught.value.code == "previous_response_not_found"
    with pytest.raises(openai.BadRequestError, match="item references need a stored response"):
        await sdk.responses.create(model=MODEL, input=[{"type": "item_reference", "id": "rs_1"}])
    assert list(tmp_path.iterdir()) == []


async def test_methods_on_stored_paths(tmp_path: Path) -> None:
    s = stack(tmp_path)
    for path, method, status in (
        ("/v1/responses/resp_1", "POST", 405),
        ("/v1/responses/resp_1/input_items", "DELETE", 405),
        ("/v1/responses/resp_1/cancel", "POST", 404),
        ("/v1/responses/resp_1/input_items/x", "GET", 404),
    ):
        sent: list[Any] = []

        async def send(message: Any, sent: list[Any] = sent) -> None:
            sent.append(message)

        async def receive() -> Any:
            return {"type": "http.request", "body": b"", "more_body": False}

        scope = {"type": "http", "method": method, "path": path, "headers": [], "query_string": b""}
        await s.app(scope, receive, send)
        assert sent[0]["status"] == status, (path, method)
        error = orjson.loads(sent[1]["body"])["error"]
        assert error["message"] and error["type"]
        if status == 405:
            assert dict(sent[0]["headers"])[b"allow"] in (b"GET, DELETE", b"GET")
    assert s.upstream.calls == []


def test_bad_store_options_fail_at_construction() -> None:
    from toolcall_middleware.config import ConfigError

    for options in (
        {"store": "postgres://x"},
        {"store": "sqlite:"},
        {"store_ttl": 0},
        {"store_ttl": -1.0},
        {"store_max_bytes": 0},
    ):
        with pytest.raises(ConfigError):
            ResponsesMiddleware(ScriptedApp(), **options)


def test_the_store_is_chosen_by_the_environment_and_created_on_first_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolcall_middleware.fronts.responses.store import default_sqlite_path
    from toolcall_middleware.fronts.responses.store.redis_store import RedisStore

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert default_sqlite_path() == tmp_path / "state" / "toolcall" / "responses.sqlite3"
    monkeypatch.setenv("TOOLCALL_RESPONSES_STORE", "sqlite")
    app = ResponsesMiddleware(ScriptedApp())
    assert app.keeper is not None and isinstance(app.keeper.store, SQLiteStore)
    assert app.keeper.store.path == default_sqlite_path()
    assert not (tmp_path / "state").exists()  # nothing until a response is stored
    monkeypatch.setenv("TOOLCALL_RESPONSES_STORE", "redis://127.0.0.1:1/0")
    monkeypatch.setenv("TOOLCALL_RESPONSES_STORE_TTL", "60")
    app = ResponsesMiddleware(ScriptedApp())
    assert app.keeper is not None and isinstance(app.keeper.store, RedisStore)
    assert app.keeper.store.ttl_ms == 60_000
    monkeypatch.setenv("TOOLCALL_RESPONSES_STORE", "off")
    assert ResponsesMiddleware(ScriptedApp()).keeper is None


def test_the_config_files_responses_table_sets_the_store(tmp_path: Path) -> None:
    from toolcall_middleware.fronts.responses import ResponsesOptions

    path = tmp_path / "kept.sqlite3"
    options = ResponsesOptions.build(
        environ={}, file={"store": f"sqlite:{path}", "store_ttl": 3600, "store_max_bytes": 1000}
    )
    app = ResponsesMiddleware(ScriptedApp(), options)
    assert app.keeper is not None and isinstance(app.keeper.store, SQLiteStore)
    assert (app.keeper.store.path, app.keeper.store.ttl) == (path, 3600.0)
    assert app.keeper.store.max_bytes == 1000


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(min_value=0, max_value=12),
    limit=st.integers(min_value=1, max_value=5),
    order=st.sampled_from(["asc", "desc"]),
)
def test_input_items_pages_walk_the_whole_list(count: int, limit: int, order: str) -> None:
    """Following ``after`` from page to page gives every item once, in the order asked."""
    from toolcall_middleware.fronts.responses.store.routes import _listing

    items = [{"id": f"msg_{n}"} for n in range(count)]
    walked: list[Any] = []
    after: list[str] = []
    while True:
        page = _listing({"limit": [str(limit)], "order": [order], "after": after}).page(items)
        assert len(page["data"]) <= limit
        walked += page["data"]
        if not page["has_more"]:
            break
        assert page["data"] and page["last_id"] == page["data"][-1]["id"]
        after = [page["last_id"]]
    assert walked == (items if order == "asc" else items[::-1])
