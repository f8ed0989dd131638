"""ASGI type aliases (the few we need, without a dependency on a framework's typing), and
the one header helper the responders share."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def without_header(headers: Any, name: bytes) -> list[tuple[bytes, bytes]]:
    """``headers`` without those named ``name`` (lower case)."""
    return [(k, v) for k, v in headers if k.lower() != name]
