"""Reading a request body once and replaying it; what the rewrite needs to know from it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import lenient_json
from .asgi import Message, Receive, Scope
from .parsers import ParserContext, Tool
from .parsers.base import UnknownTools
from .parsers.descriptor import EFFORT, THINKING
from .upstream_fields import UpstreamFields, front_fields

#: The efforts that ask for no reasoning (Hy3's template's, and OpenAI's).
_NO_EFFORT = frozenset({"no_think", "none"})


@dataclass(frozen=True, slots=True)
class RequestFacts:
    """The parts of a chat completions request body the rewrite depends on."""

    model: str = ""
    tools: tuple[Tool, ...] = ()
    stream: bool = False
    #: The request turns the model's thinking off (``chat_template_kwargs`` with ``thinking``
    #: or ``enable_thinking`` false): its chat template opens no reasoning block.
    thinking_off: bool = False
    #: The switches by which the request asks for reasoning (``descriptor.EFFORT``: a
    #: ``reasoning_effort`` in ``chat_template_kwargs``, else at the top level, other than
    #: ``no_think`` or ``none``; ``THINKING``: ``chat_template_kwargs`` with ``thinking`` or
    #: ``enable_thinking`` true): a template that thinks only when asked by its switch opens
    #: its block.
    thinking_asked: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, body: bytes) -> RequestFacts:
        """Lenient: a body that is not a JSON object gives an empty request (no tools)."""
        return cls.of(decode_request(body))

    @classmethod
    def of(cls, payload: dict[str, Any] | None) -> RequestFacts:
        """The facts of a decoded request (None: not a JSON object)."""
        if payload is None:
            return cls()
        model = payload.get("model")
        kwargs = payload.get("chat_template_kwargs")
        if not isinstance(kwargs, dict):
            kwargs = {}
        effort = kwargs.get("reasoning_effort") or payload.get("reasoning_effort")
        asked: set[str] = set()
        if isinstance(effort, str) and effort not in _NO_EFFORT:
            asked.add(EFFORT)
        if kwargs.get("thinking") is True or kwargs.get("enable_thinking") is True:
            asked.add(THINKING)
        return cls(
            model=model if isinstance(model, str) else "",
            tools=tools_from_request(payload.get("tools")),
            stream=payload.get("stream") is True,
            thinking_off=kwargs.get("thinking") is False or kwargs.get("enable_thinking") is False,
            thinking_asked=frozenset(asked),
        )

    def parser_context(
        self, unknown_tools: UnknownTools = "forward", thinking_opened: bool = False
    ) -> ParserContext:
        return ParserContext(self.tools, unknown_tools, thinking_opened)


def decode_request(body: bytes) -> dict[str, Any] | None:
    """The request body as a JSON object, or None when it is not one."""
    try:
        payload = lenient_json.loads(body)
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None


def set_upstream_fields(
    scope: Scope, body: bytes, fields: UpstreamFields
) -> tuple[Scope, bytes, dict[str, Any] | None]:
    """The scope and body with the configured fields set, and the decoded request.

    A body that is not a JSON object passes as it is (the app answers it). The fields an API
    front names in the scope keep the front's values; ``Content-Length`` is the new body's.
    """
    payload = decode_request(body)
    if payload is None:
        return scope, body, None
    fields.apply(payload, front_fields(scope))
    body = lenient_json.dumps(payload)
    length = b"%d" % len(body)
    headers = [(k, length if k.lower() == b"content-length" else v) for k, v in scope["headers"]]
    return {**scope, "headers": headers}, body, payload


def tools_from_request(tools: Any) -> tuple[Tool, ...]:
    """OpenAI ``tools`` entries (``{"type": "function", "function": {...}}``) as ``Tool``s."""
    if not isinstance(tools, list):
        return ()
    found: list[Tool] = []
    for entry in tools:
        function = entry.get("function") if isinstance(entry, Mapping) else None
        if not isinstance(function, Mapping):
            continue
        name = function.get("name")
        parameters = function.get("parameters")
        if isinstance(name, str) and name:
            found.append(Tool(name, parameters if isinstance(parameters, Mapping) else {}))
    return tuple(found)


class BodyTooLarge(Exception):
    """The request body passed the configured limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body is larger than {limit} bytes")
        self.limit = limit


async def read_body(receive: Receive, limit: int | None = None) -> tuple[bytes, Message | None]:
    """The whole request body, and a disconnect message if the client left while sending it.

    When that message is not None the body is partial: the client is gone, and nothing may be
    sent on its behalf. Past ``limit`` bytes, ``BodyTooLarge`` (the rest is never read).
    """
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(parts), message
        chunk = message.get("body", b"")
        size += len(chunk)
        if limit is not None and size > limit:
            raise BodyTooLarge(limit)
        parts.append(chunk)
        if not message.get("more_body", False):
            return b"".join(parts), None


def replay_receive(body: bytes, early: Message | None, receive: Receive) -> Receive:
    """A ``receive`` that gives the app the body already read, then defers to the real one."""
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]
    if early is not None:
        pending.append(early)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
