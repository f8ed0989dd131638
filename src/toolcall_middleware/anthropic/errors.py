"""Anthropic error bodies, and the mapping from upstream (OpenAI-style) failures to them.

Anthropic clients pick their exception class and retry policy from the HTTP status and the
``error.type`` of ``{"type": "error", "error": {"type": ..., "message": ...}}``, so every failure
we return, ours or the upstream's, has exactly that shape and one of Anthropic's statuses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

# Anthropic's documented error types and the status each one travels with.
ERROR_STATUS: dict[str, int] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}

# Upstream HTTP status -> (our status, Anthropic error type). Statuses not listed fall back to
# invalid_request_error (4xx) or api_error (5xx).
_STATUS_MAP: dict[int, tuple[int, str]] = {
    400: (400, "invalid_request_error"),
    401: (401, "authentication_error"),
    402: (402, "billing_error"),
    403: (403, "permission_error"),
    404: (404, "not_found_error"),
    408: (504, "timeout_error"),
    413: (413, "request_too_large"),
    422: (400, "invalid_request_error"),  # FastAPI/vLLM request validation
    429: (429, "rate_limit_error"),
    503: (529, "overloaded_error"),  # Claude Code retries 529 as "overloaded"
    504: (504, "timeout_error"),
    529: (529, "overloaded_error"),
}

# OpenAI-style ``error.type`` / ``error.code`` strings seen in mid-stream error events.
_TYPE_ALIASES: dict[str, str] = {
    "invalid_request_error": "invalid_request_error",
    "badrequesterror": "invalid_request_error",
    "bad_request": "invalid_request_error",
    "context_length_exceeded": "invalid_request_error",
    "authentication_error": "authentication_error",
    "invalid_api_key": "authentication_error",
    "permission_error": "permission_error",
    "not_found_error": "not_found_error",
    "notfounderror": "not_found_error",
    "model_not_found": "not_found_error",
    "rate_limit_error": "rate_limit_error",
    "rate_limit_exceeded": "rate_limit_error",
    "insufficient_quota": "billing_error",
    "overloaded_error": "overloaded_error",
    "overloaded": "overloaded_error",
    "timeout": "timeout_error",
    "timeout_error": "timeout_error",
    "server_error": "api_error",
    "internal_server_error": "api_error",
    "api_error": "api_error",
}


class AnthropicError(Exception):
    """A failure to report to the client as an Anthropic error (status + body)."""

    def __init__(self, message: str, type: str = "invalid_request_error", status: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.type = type
        self.status = status or ERROR_STATUS.get(type, 500)

    def body(self) -> dict[str, Any]:
        return error_body(self.type, self.message)


def invalid_request(message: str) -> AnthropicError:
    return AnthropicError(message, "invalid_request_error", 400)


def error_body(type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": type, "message": message}}


def map_status(status: int) -> tuple[int, str]:
    """The Anthropic status and error type for an upstream HTTP status."""
    if status in _STATUS_MAP:
        return _STATUS_MAP[status]
    return (400, "invalid_request_error") if 400 <= status < 500 else (500, "api_error")


def upstream_message(body: bytes) -> str:
    """The human-readable message of an upstream error body, whatever its dialect."""
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError:
        text = body.decode("utf-8", "replace").strip()
        return text[:2000] or "no error message"
    if isinstance(doc, Mapping):
        message = _message_of(doc)
        if message:
            return message
    return body.decode("utf-8", "replace")[:2000]


def _message_of(doc: Mapping[str, Any]) -> str | None:
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


def from_upstream_response(status: int, body: bytes) -> AnthropicError:
    """An upstream non-2xx response, before anything was streamed to the client."""
    our_status, type = map_status(status)
    message = f"upstream returned HTTP {status}: {upstream_message(body)}"
    return AnthropicError(message, type, our_status)


def from_stream_error(doc: Mapping[str, Any]) -> AnthropicError:
    """A ``data: {"error": ...}`` event in an upstream stream (the client already has a 200)."""
    err = doc.get("error")
    message = _message_of(doc) or "upstream stream error"
    type = "api_error"
    if isinstance(err, Mapping):
        code = err.get("code")
        if isinstance(code, int) and 400 <= code < 600:
            type = map_status(code)[1]
        else:
            for key in ("type", "code"):
                value = err.get(key)
                if isinstance(value, str) and value.lower() in _TYPE_ALIASES:
                    type = _TYPE_ALIASES[value.lower()]
                    break
    return AnthropicError(message, type)
