"""The request pipeline every front shares: the client's body, the in-process upstream request.

A front reads its client's body with a size limit (``read_request``), translates it, and calls
the wrapped app directly with a new scope (``upstream_scope``) and the translated body replayed
through ``receive`` (``request.replay_receive``). Nothing reaches the app before the whole
client body is in and valid: a client that leaves mid-upload sends nothing upstream.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable
from typing import Any, NamedTuple, TypeVar

import orjson

from ...asgi import Receive, Scope, Send
from ...lenient_json import loads_well_formed
from ...request import BodyTooLarge, read_body
from ...upstream_fields import front_scope
from .wire import dumps

T = TypeVar("T")

logger = logging.getLogger("toolcall_middleware.fronts")

#: Request headers that describe the client's request, not the upstream one; each front adds
#: its API's own (``anthropic-version``, ``x-goog-api-key``, ...).
REQUEST_HEADERS = frozenset(
    {
        b"content-length",
        b"content-type",
        b"content-encoding",
        b"accept",
        b"accept-encoding",
        b"transfer-encoding",
        b"x-api-key",
    }
)


class ClientGone(Exception):
    """The client disconnected before its request body was complete."""


class Reply(NamedTuple):
    """A whole HTTP response: status, body, extra headers."""

    status: int
    body: bytes
    headers: tuple[tuple[bytes, bytes], ...] = ()


def json_reply(
    status: int, doc: Any, headers: Iterable[tuple[bytes, bytes]] = (), *, large: bool = False
) -> Reply:
    content_type = (b"content-type", b"application/json")
    return Reply(status, dumps(doc, large=large), (content_type, *headers))


class IntegerOutOfRange(ValueError):
    """A request holds an integer past what a double holds (``path`` names where): orjson,
    as JavaScript, reads a larger integer as a double, and refuses this one."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: an integer too large for a JSON number (past a double)")
        self.path = path


def decode_request(body: bytes) -> Any:
    """The client's JSON body. orjson reads nearly every one; what it refuses is read again
    allowing lone surrogate escapes, each as U+FFFD (docs/clients.md, "Text no encoder
    writes"): JavaScript's ``JSON.stringify`` writes one for a string that holds half an emoji
    (a tool's output cut in UTF-16 units, say), and the client sends it back with every later
    turn. ``NaN`` and the infinities stay refused. Raises ``ValueError`` (orjson's) when the
    body is not JSON, ``IntegerOutOfRange`` when it holds an integer no double holds."""
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        refused = exc
    try:
        doc = loads_well_formed(body, nan=False)
    except ValueError:
        raise refused from None
    path = _integer_out_of_range(doc)
    if path is not None:
        raise IntegerOutOfRange(path)
    return doc


def _integer_out_of_range(doc: Any) -> str | None:
    """Where ``doc`` holds an integer outside ``-2**63 .. 2**64 - 1`` (what orjson reads as an
    integer and writes), if anywhere: in a body orjson refused, one past a double. Walked
    without recursion."""
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        value, path = stack.pop()
        if type(value) is int:
            if not -(2**63) <= value < 2**64:
                return path or "(the body)"
        elif type(value) is dict:
            stack += ((item, f"{path}.{key}" if path else str(key)) for key, item in value.items())
        elif type(value) is list:
            stack += ((item, f"{path}[{i}]") for i, item in enumerate(value))
    return None


class Untranslatable(Exception):
    """A request the checks let through but its translation could not read (a check that
    names the field is missing: logged). Each front answers it with its 400."""


def translated(translate: Callable[[], T], refused: type[Exception]) -> T | None:
    """``translate()``, or ``None`` when the request nests too deep to translate (the stack,
    or orjson's 255 levels). ``refused`` (the front's own 400s) pass; any other exception is
    ``Untranslatable``: a request's translation never ends in a bare 500."""
    try:
        return translate()
    except refused:
        raise
    except RecursionError:
        return None
    except Exception as exc:
        if type(exc) is orjson.JSONEncodeError and str(exc) == _TOO_DEEP:
            return None
        logger.exception("a request that passed the checks could not be translated")
        problem = f"{type(exc).__name__}: {exc}"
        raise Untranslatable(f"the request could not be translated ({problem})") from exc


#: orjson's message for a document nested past its 255 levels.
_TOO_DEEP = "Recursion limit reached"


async def read_request(receive: Receive, limit: int) -> bytes:
    """The client's whole body. Raises ``BodyTooLarge`` past ``limit`` bytes and
    ``ClientGone`` if the client left before the last piece (the partial body is dropped)."""
    body, early = await read_body(receive, limit)
    if early is not None:
        raise ClientGone
    return body


def encode_upstream(body: dict[str, Any]) -> bytes | None:
    """The translated request as JSON, or ``None`` when it nests too deep to encode (orjson's
    limit, 255 levels: no upstream would take it either)."""
    try:
        return orjson.dumps(body)
    except orjson.JSONEncodeError:
        return None


def header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    return next((v for k, v in headers if k.lower() == name), None)


def upstream_scope(
    scope: Scope,
    path: str,
    length: int,
    *,
    stream: bool,
    drop: frozenset[bytes] = REQUEST_HEADERS,
    api_key_headers: tuple[bytes, ...] = (b"x-api-key",),
    own_fields: Collection[str] = (),
) -> Scope:
    """The scope of the translated ``POST path`` to the wrapped app.

    The client's headers pass except ``drop``; an API key sent in one of ``api_key_headers``
    becomes ``Authorization: Bearer`` (what OpenAI-compatible servers want) unless the client
    sent an ``Authorization`` of its own. ``own_fields``: the front's ``upstream_fields``, which
    the chat path's configured fields leave as the front set them (``upstream_fields``).
    """
    client_headers = scope.get("headers", ())
    headers = [(k, v) for k, v in client_headers if k.lower() not in drop]
    names = {k.lower() for k, _ in headers}
    if b"authorization" not in names:
        for name in api_key_headers:
            api_key = header(client_headers, name)
            if api_key:
                headers.append((b"authorization", b"Bearer " + api_key))
                break
    headers += [
        (b"content-type", b"application/json"),
        (b"content-length", str(length).encode()),
        (b"accept", b"text/event-stream" if stream else b"application/json"),
        (b"accept-encoding", b"identity"),
    ]
    full_path = scope.get("root_path", "") + path
    target = {
        **scope,
        "method": "POST",
        "path": full_path,
        "raw_path": full_path.encode(),
        "query_string": b"",
        "headers": headers,
    }
    return front_scope(target, own_fields)


async def send_reply(send: Send, reply: Reply) -> None:
    headers = [*reply.headers, (b"content-length", str(len(reply.body)).encode())]
    await send({"type": "http.response.start", "status": reply.status, "headers": headers})
    await send({"type": "http.response.body", "body": reply.body, "more_body": False})


__all__ = [
    "REQUEST_HEADERS",
    "BodyTooLarge",
    "ClientGone",
    "IntegerOutOfRange",
    "Reply",
    "Untranslatable",
    "decode_request",
    "encode_upstream",
    "header",
    "json_reply",
    "read_request",
    "send_reply",
    "translated",
    "upstream_scope",
]
