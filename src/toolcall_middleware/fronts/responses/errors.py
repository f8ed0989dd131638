"""OpenAI error bodies for the Responses front, and upstream failures rendered in them.

``{"error": {"message", "type", "param", "code"}}``: the openai SDK raises its ``APIError``
subclass from the HTTP status and shows the message; Codex shows a 400's body text and retries
5xx. Inside a stream, the same failure becomes ``response.failed`` with ``error.code``.
"""

from __future__ import annotations

from typing import Any

from ..core.failures import Kind, UpstreamFailure

#: Failure kind -> (HTTP status when the upstream gave none, error type, code).
KINDS: dict[Kind, tuple[int, str, str]] = {
    "invalid_request": (400, "invalid_request_error", "invalid_request"),
    "context_length": (400, "invalid_request_error", "context_length_exceeded"),
    "authentication": (401, "authentication_error", "invalid_api_key"),
    "billing": (402, "insufficient_quota", "insufficient_quota"),
    "permission": (403, "permission_error", "permission_denied"),
    "not_found": (404, "not_found_error", "not_found"),
    "too_large": (413, "invalid_request_error", "request_too_large"),
    "rate_limit": (429, "rate_limit_error", "rate_limit_exceeded"),
    "timeout": (504, "server_error", "timeout"),
    "overloaded": (503, "server_error", "server_is_overloaded"),
    "server": (500, "server_error", "server_error"),
}


class ResponsesError(Exception):
    """A failure to report as an OpenAI error (status + body)."""

    def __init__(
        self,
        message: str,
        *,
        status: int = 400,
        type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.type = type
        self.param = param
        self.code = code

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }


def invalid(message: str, param: str | None = None, code: str | None = None) -> ResponsesError:
    """A 400 ``invalid_request_error``; ``param`` names the field, as OpenAI does."""
    text = f"{param}: {message}" if param else message
    return ResponsesError(text, param=param, code=code)


def from_failure(failure: UpstreamFailure) -> ResponsesError:
    status, type, code = KINDS[failure.kind]
    if failure.gateway:
        status, code = 502, "bad_gateway"
    elif failure.status:
        status = failure.status
    return ResponsesError(failure.message, status=status, type=type, code=code)


def stream_error(failure: UpstreamFailure) -> dict[str, str]:
    """The ``response.error`` of ``response.failed``: Codex reads the code (its
    ``context_length_exceeded`` and ``insufficient_quota`` are errors of their own; other codes
    are retried)."""
    return {"code": KINDS[failure.kind][2], "message": failure.message}
