"""Anthropic error bodies, and upstream failures (``core.failures``) rendered in them.

Anthropic clients pick their exception class and retry policy from the HTTP status and the
``error.type`` of ``{"type": "error", "error": {"type": ..., "message": ...}}``, so every failure
we return, ours or the upstream's, has exactly that shape and one of Anthropic's statuses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.failures import Kind, UpstreamFailure

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

#: Failure kind -> Anthropic error type. Claude Code retries 529 as "overloaded".
KIND_TYPES: dict[Kind, str] = {
    "invalid_request": "invalid_request_error",
    "context_length": "invalid_request_error",
    "authentication": "authentication_error",
    "billing": "billing_error",
    "permission": "permission_error",
    "not_found": "not_found_error",
    "too_large": "request_too_large",
    "rate_limit": "rate_limit_error",
    "timeout": "timeout_error",
    "overloaded": "overloaded_error",
    "server": "api_error",
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


def from_failure(failure: UpstreamFailure) -> AnthropicError:
    """An upstream failure as the Anthropic error a client gets for it. Anthropic has no
    status of its own for an upstream that cannot be reached: that is 502, as on every API
    without one (an upstream's 502 is the proxy's "unreachable")."""
    type = KIND_TYPES[failure.kind]
    gateway = failure.gateway or failure.status == 502
    return AnthropicError(failure.message, type, 502 if gateway else 0)


def str_field(obj: Mapping[str, Any], name: str, path: str) -> str:
    """``obj[name]``, a string, or the 400 naming the field."""
    value = obj.get(name)
    if not isinstance(value, str):
        raise invalid_request(f"{path}.{name}: field required (a string)")
    return value
