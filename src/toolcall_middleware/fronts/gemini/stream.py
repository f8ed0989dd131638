"""``GeminiStream``: one Gemini response (``core.translator.EventStream`` over a
``GeminiTranslator``), framed as Gemini frames it (``wire.py``).

Streaming, each of the translator's parts is one whole ``GenerateContentResponse`` (``Chunks``),
and last comes a chunk with ``finishReason`` and ``usageMetadata``. A failure after the stream
started is the bare error object (``failure_bytes``), which the middleware sends in a write of
its own, after a pause: the JS SDK recognises it only when it is the whole of one read, as
Google's own mid-stream errors arrive. In the array form it is the array's last element. Not
streaming, the parts are gathered into one response (``keep``): thoughts, then text, then the
calls, up to ``max_answer_bytes``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from ..core.failures import UpstreamFailure
from ..core.pipeline import Reply, json_reply
from ..core.reader import MAX_ARGUMENTS_BYTES
from ..core.translator import EventStream, WireEvent
from ..core.wire import Output
from .errors import GeminiError, from_failure
from .request import GeminiRequest
from .response import response
from .translator import GeminiTranslator
from .wire import LARGE, Framing, dump, one_line


class GeminiStream(EventStream):
    """One ``generateContent`` or ``streamGenerateContent`` response
    (``core.responder.FrontStream``): the translator's parts as chunks in the client's
    ``framing`` (``None``: not streaming, gathered into one response)."""

    translator: GeminiTranslator

    def __init__(
        self,
        request: GeminiRequest,
        framing: Framing | None,
        *,
        signatures: bool = True,
        context_scale: float = 1.0,
        max_arguments_bytes: int = MAX_ARGUMENTS_BYTES,
        max_answer_bytes: int = MAX_ARGUMENTS_BYTES,
    ) -> None:
        translator = GeminiTranslator(
            request,
            framing,
            signatures=signatures,
            context_scale=context_scale,
            max_arguments_bytes=max_arguments_bytes,
        )
        super().__init__(translator, framing is not None)
        self.framing = framing
        #: SSE framing: the error object that ended the stream, once one did.
        self.failure_bytes: bytes | None = None
        # Not streaming: the whole response, capped.
        self.max_answer_bytes = max_answer_bytes
        self._held = 0
        self._thoughts: list[str] = []
        self._texts: list[str] = []
        self._calls: list[dict[str, Any]] = []
        self._final: dict[str, Any] | None = None

    def head(self) -> Output:
        return self.translator.chunks.start()

    def encode(self, events: Iterable[WireEvent], large: bool = False) -> bytes:
        """The translator's events as chunks (``Chunks``; ``large`` is never set: a call's
        part says its own size)."""
        chunks = self.translator.chunks
        out: list[bytes] = []
        for kind, data in events:
            if kind == "text":
                out.append(chunks.text(data["text"]))
            elif kind == "thought":
                out.append(chunks.thought(data["text"]))
            elif kind == "call":
                out.append(chunks.part(dump(data["part"], data["size"])))
            elif kind == "finish":
                translator = self.translator
                doc = response(
                    [{"text": ""}],
                    translator.model,
                    translator.response_id,
                    data["finishReason"],
                    data["usageMetadata"],
                )
                out.append(chunks.last(doc))
            elif kind == "error":
                error = orjson.dumps(data)
                if self.framing == "sse":
                    self.failure_bytes = error
                out.append(chunks.error(error))
        return b"".join(out)

    def keep(self, events: list[WireEvent]) -> None:
        """Not streaming: keep what the one response will hold, up to ``max_answer_bytes``."""
        for kind, data in events:
            if kind == "text":
                self._held += len(data["text"])
                self._texts.append(data["text"])
            elif kind == "thought":
                self._held += len(data["text"])
                self._thoughts.append(data["text"])
            elif kind == "call":
                self._held += data["size"]
                self._calls.append(data["part"])
            elif kind == "finish":
                self._final = data
        if self._held > self.max_answer_bytes and self.translator.failure is None:
            message = f"upstream answer over {self.max_answer_bytes} bytes"
            self.translator.fail(UpstreamFailure("server", message))
            self._texts, self._thoughts, self._calls = [], [], []

    def failed(self, failure: UpstreamFailure) -> list[WireEvent]:
        return self.translator.fail(failure)

    def result(self) -> Reply:
        translator = self.translator
        if translator.failure is not None:
            return self.error(translator.failure)
        parts: list[dict[str, Any]] = []
        # (The pieces go as they are joined: only the whole texts are held.)
        thoughts, texts, self._thoughts, self._texts = self._thoughts, self._texts, [], []
        if thoughts:
            parts.append({"text": _joined(thoughts), "thought": True})
        if texts:
            parts.append({"text": _joined(texts)})
        parts += self._calls
        final = self._final or {}
        doc = response(
            parts or [{"text": ""}],
            translator.model,
            translator.response_id,
            final.get("finishReason"),
            final.get("usageMetadata"),
        )
        body = dump(doc, self._held)
        return Reply(200, body, ((b"content-type", b"application/json"),))

    def error(self, failure: UpstreamFailure) -> Reply:
        return error_reply(from_failure(failure), failure.retry_after)


def _joined(pieces: list[str]) -> str:
    """The pieces as one text; the list is emptied, so that only the text is held."""
    text = "".join(pieces)
    pieces.clear()
    return text


def error_reply(error: GeminiError, retry_after: bytes | None = None) -> Reply:
    extra = [(b"retry-after", retry_after)] if retry_after else []
    return json_reply(error.code, error.body(), extra)


__all__ = ["LARGE", "Framing", "GeminiStream", "dump", "error_reply", "one_line"]
