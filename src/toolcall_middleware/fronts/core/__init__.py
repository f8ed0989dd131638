"""The translation core every API front shares (Anthropic, Responses, Gemini).

A front is a request translator plus an encoder of the core's events:

- ``chunk_reader``: ``ChunkReader`` reads the (already repaired) Chat Completions answer,
  streamed or whole, into typed ``events``; ``reader``: ``ChatReader``, the one the fronts use,
  also reads the usual chunk from its event's bytes (the fast path's reading).
- ``failures``: ``UpstreamFailure``, upstream errors in a neutral form each front renders;
  ``finish``: the one table of finish reasons and their outcomes (docs/outcomes.md).
- ``undecoded``: ``decode_chunk``, the one JSON decode of upstream chunks, and upstream text
  that is not UTF-8, decoded per channel (a character cut between events joined, each byte
  that is not UTF-8 a counted U+FFFD).
- ``large``: documents holding a whole answer's text, written with little memory.
- ``middleware``: ``FrontMiddleware``, the request pipeline each front's middleware runs (read,
  decode, translate with its guards, respond), with the API's name, headers and errors as hooks.
- ``pipeline``: the client's body with a size limit, its translation guarded, the in-process
  upstream request, whole replies; ``wire``: SSE framing and the JSON a front sends.
- ``responder``: ``FrontResponder`` runs the wrapped app and writes a ``FrontStream``'s bytes,
  with bounded buffers and an optional keep-alive.
- ``translator``: ``Translator`` (reader in, an API's ``(type, data)`` events out) and
  ``EventStream`` (a ``FrontStream`` over a translator; ``event:``-named SSE unless a front
  overrides ``encode``).
- ``fast_path``: the usual event, read by ``ChatReader`` (undecoded, or as the chat path
  handed it) and written by the front's ``Translator.fast_delta`` from byte templates, under
  one rule (exactly the general path's bytes, or decline). Every front's ``EventStream``
  takes it on its own.
- ``options``: ``FrontOptions``, the base of every front's options (``build``: keyword >
  ``TOOLCALL_<FRONT>_*`` > config table > default) and the checks they share;
  ``models.map_model``; ``system``: one leading system message; ``ids``: the tool-id codec;
  ``schema``: tool-schema cleaning; ``tokens``: the local token estimate; ``numbers``: JSON
  integers and numbers as requests and usage are checked.
"""

from __future__ import annotations

from .events import (
    ArgsDelta,
    CallClosed,
    CallOpened,
    Event,
    Finish,
    ReasoningDelta,
    TextDelta,
    UpstreamError,
)
from .failures import UpstreamFailure
from .reader import ChatReader
from .responder import FrontResponder
from .templates import EventTemplate
from .translator import EventStream, FrontStream, Translator
from .undecoded import decode_chunk

__all__ = [
    "ArgsDelta",
    "CallClosed",
    "CallOpened",
    "ChatReader",
    "Event",
    "EventStream",
    "EventTemplate",
    "Finish",
    "FrontResponder",
    "FrontStream",
    "ReasoningDelta",
    "TextDelta",
    "Translator",
    "UpstreamError",
    "UpstreamFailure",
    "decode_chunk",
]
