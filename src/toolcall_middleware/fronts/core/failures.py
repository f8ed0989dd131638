"""Upstream failures in a neutral form, which each front renders in its own error shape.

A failure has a ``kind`` (what went wrong, in words every API has), the upstream's HTTP status
when there was one, and a readable message. Fronts map kinds to their statuses and error types
(Anthropic ``overloaded_error`` 529, OpenAI ``server_error``, Gemini ``UNAVAILABLE``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import orjson

Kind = Literal[
    "invalid_request",
    "context_length",
    "authentication",
    "billing",
    "permission",
    "not_found",
    "too_large",
    "rate_limit",
    "timeout",
    "overloaded",
    "server",
]

#: Upstream HTTP status -> kind. Other 4xx are ``invalid_request``, other statuses ``server``.
STATUS_KINDS: dict[int, Kind] = {
    400: "invalid_request",
    401: "authentication",
    402: "billing",
    403: "permission",
    404: "not_found",
    408: "timeout",
    413: "too_large",
    422: "invalid_request",  # FastAPI/vLLM request validation
    429: "rate_limit",
    503: "overloaded",
    504: "timeout",
    529: "overloaded",
}

# OpenAI-style ``error.type`` / ``error.code`` strings seen in mid-stream error events.
_NAMED_KINDS: dict[str, Kind] = {
    "invalid_request_error": "invalid_request",
    "badrequesterror": "invalid_request",
    "bad_request": "invalid_request",
    "context_length_exceeded": "context_length",
    "authentication_error": "authentication",
    "invalid_api_key": "authentication",
    "permission_error": "permission",
    "not_found_error": "not_found",
    "notfounderror": "not_found",
    "model_not_found": "not_found",
    "rate_limit_error": "rate_limit",
    "rate_limit_exceeded": "rate_limit",
    "insufficient_quota": "billing",
    "overloaded_error": "overloaded",
    "overloaded": "overloaded",
    "service_unavailable": "overloaded",  # also a draining ``toolcall serve``'s own
    "timeout": "timeout",
    "timeout_error": "timeout",
    "server_error": "server",
    "internal_server_error": "server",
    "api_error": "server",
}

# What vLLM, SGLang, llama.cpp and OpenAI say when the prompt does not fit.
_CONTEXT_WORDS = (
    "context length",
    "context_length",
    "maximum context",
    "context window",
    "too many tokens",
    "prompt is too long",
    "exceeds the available context",
)


@dataclass(frozen=True, slots=True)
class UpstreamFailure:
    kind: Kind
    message: str
    #: The upstream's HTTP status (0: none, e.g. a failure inside a 200 stream, or our own).
    status: int = 0
    #: The upstream's ``Retry-After`` header, passed on where the API has one.
    retry_after: bytes | None = None
    #: The upstream answered in a way no front can read (no response, a compressed or
    #: unexpected body): fronts answer 502 Bad Gateway.
    gateway: bool = False


def kind_of_status(status: int) -> Kind:
    if status in STATUS_KINDS:
        return STATUS_KINDS[status]
    return "invalid_request" if 400 <= status < 500 else "server"


def upstream_message(body: bytes) -> str:
    """The human-readable message of an upstream error body, whatever its dialect."""
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError:
        text = body.decode("utf-8", "replace").strip()
        return text[:2000] or "no error message"
    if isinstance(doc, Mapping):
        message = message_of(doc)
        if message:
            return message
    return body.decode("utf-8", "replace")[:2000]


def message_of(doc: Mapping[str, Any]) -> str | None:
    err = doc.get("error")
    if isinstance(err, Mapping):  # OpenAI / Anthropic: {"error": {"message": ...}}
        msg = err.get("message")
        if isinstance(msg, str) and msg:
            return msg
    if isinstance(err, str) and err:
        return err
    msg = doc.get("message")  # vLLM: {"object": "error", "message": ...}
    if isinstance(msg, str) and msg:
        return msg
    detail = doc.get("detail")  # FastAPI / Starlette HTTPException
    if isinstance(detail, str) and detail:
        return detail
    if detail is not None:
        return orjson.dumps(detail).decode()
    return None


def is_context_length(message: str) -> bool:
    lowered = message.lower()
    return any(words in lowered for words in _CONTEXT_WORDS)


def from_response(status: int, body: bytes, retry_after: bytes | None = None) -> UpstreamFailure:
    """An upstream non-2xx response."""
    message = upstream_message(body)
    kind = kind_of_status(status)
    if kind == "invalid_request" and is_context_length(message):
        kind = "context_length"
    return UpstreamFailure(kind, f"upstream returned HTTP {status}: {message}", status, retry_after)


def from_stream_error(doc: Mapping[str, Any]) -> UpstreamFailure:
    """A ``data: {"error": ...}`` event in an upstream stream (the client may have a 200)."""
    err = doc.get("error")
    message = message_of(doc) or "upstream stream error"
    kind: Kind = "server"
    if isinstance(err, Mapping):
        code = err.get("code")
        if isinstance(code, int) and 400 <= code < 600:
            kind = kind_of_status(code)
        else:
            for key in ("type", "code"):
                value = err.get(key)
                if isinstance(value, str) and value.lower() in _NAMED_KINDS:
                    kind = _NAMED_KINDS[value.lower()]
                    break
    if kind == "invalid_request" and is_context_length(message):
        kind = "context_length"
    return UpstreamFailure(kind, message)


def bad_upstream(problem: str) -> UpstreamFailure:
    """The upstream answered 2xx with something no front can read (HTTP 502 territory)."""
    return UpstreamFailure("server", f"upstream sent a {problem}", gateway=True)
