"""Repair open-weight model tool calls in flight, for any ASGI app."""

from __future__ import annotations

__version__ = "0.1.0"
