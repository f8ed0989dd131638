"""``GeminiTranslator``: the core's events -> a Gemini response's parts (sans-I/O).

A text delta is one ``{"text"}`` part, a reasoning delta (when the client asked for thoughts)
one ``{"text", "thought": true}`` part, each call one ``functionCall`` part with its ``args``
object, made when the call is over (the core's reader holds its arguments until then: a Gemini
call is never split); the first call of a turn carries the reasoning before it as its
``thoughtSignature``. Last come the finish reason and ``usageMetadata`` (estimated from the
text sent when the upstream gave no usage), or the API's error.

Its wire events, which ``GeminiStream`` frames (or gathers, not streaming):

- ``("text", {"text": ...})`` and ``("thought", {"text": ..., "thought": True})``: the part;
- ``("call", {"part": ..., "size": ...})``: the part, and the length of the arguments' text
  (``wire.dump`` writes a large one apart);
- ``("finish", {"finishReason": ..., "usageMetadata": ...})``: what the last chunk says;
- ``("error", body)``: the API's error object that ends the response.
"""

from __future__ import annotations

from typing import Any

from .. import core
from ..core.failures import UpstreamFailure
from ..core.reader import ARGUMENTS, MAX_ARGUMENTS_BYTES, REASONING, ChatReader
from ..core.translator import Translator, WireEvent
from . import signature
from .errors import from_failure
from .request import GeminiRequest
from .response import finish_reason, new_call_id, new_response_id, usage_metadata
from .wire import Chunks, Framing


class GeminiTranslator(Translator):
    """One Gemini response from one upstream answer."""

    def __init__(
        self,
        request: GeminiRequest,
        framing: Framing | None,
        *,
        signatures: bool = True,
        context_scale: float = 1.0,
        max_arguments_bytes: int = MAX_ARGUMENTS_BYTES,
    ) -> None:
        self.model = request.model
        self.include_thoughts = request.include_thoughts
        self.input_tokens = request.input_tokens
        self.context_scale = context_scale
        self.reader = ChatReader(new_call_id, max_arguments_bytes=max_arguments_bytes)
        self.response_id = new_response_id()
        #: The streamed chunks (the fast path writes a text part's chunk itself; not
        #: streaming, nothing is written with them).
        self.chunks = Chunks(framing or "sse", self.model, self.response_id)
        self.done = False
        #: What ended the response with the API's error, if anything did.
        self.failure: UpstreamFailure | None = None
        # Reasoning before the first call, for its signature (None: not wanted, or too big).
        self._reasoning: list[str] | None = [] if signatures else None
        self._reasoning_size = 0
        self._ascii = self._other = 0  # output characters: the estimate without upstream usage

    def start(self) -> list[WireEvent]:
        return []

    def fail(self, failure: UpstreamFailure) -> list[WireEvent]:
        """End with the API's error, also when the response's end was made but could not be
        written (``EventStream.fail``)."""
        self.reader.done = True
        self.done = True
        self.failure = failure
        return [("error", from_failure(failure).body())]

    # --- core events ------------------------------------------------------------------------

    def on_args(self, event: core.ArgsDelta, out: list[WireEvent]) -> None:
        """Nothing: the reader holds the arguments until the call ends."""

    def on_text(self, event: core.TextDelta, out: list[WireEvent]) -> None:
        self._count(event.text)
        out.append(("text", {"text": event.text}))

    def on_reasoning(self, event: core.ReasoningDelta, out: list[WireEvent]) -> None:
        text = event.text
        self._count(text)
        self._keep_reasoning(text)
        if self.include_thoughts:
            out.append(("thought", {"text": text, "thought": True}))

    def on_call_opened(self, event: core.CallOpened, out: list[WireEvent]) -> None:
        """Nothing: the call's part is made whole when it ends."""

    def on_call_closed(self, event: core.CallClosed, out: list[WireEvent]) -> None:
        self._count(event.text)
        out.append(("call", {"part": self._call_part(event), "size": len(event.text)}))

    def on_finish(self, event: core.Finish, out: list[WireEvent]) -> None:
        output_tokens = -(-self._ascii // 4) + self._other
        usage = usage_metadata(event.usage, self.input_tokens, output_tokens, self.context_scale)
        out.append(
            ("finish", {"finishReason": finish_reason(event.reason), "usageMetadata": usage})
        )
        self.done = True

    def on_error(self, event: core.UpstreamError, out: list[WireEvent]) -> None:
        out += self.fail(event.failure)

    def fast_delta(self, kind: int, text: str) -> bytes | None:
        """``Translator.fast_delta``: what the handler makes of the one core event read, as
        the chunk it is written in (none for arguments, or reasoning not asked for)."""
        if kind == ARGUMENTS:
            return b""
        self._count(text)
        if kind != REASONING:
            return self.chunks.text(text)
        self._keep_reasoning(text)
        return self.chunks.thought(text) if self.include_thoughts else b""

    # --- the parts --------------------------------------------------------------------------

    def _call_part(self, call: core.CallClosed) -> dict[str, Any]:
        part: dict[str, Any] = {
            "functionCall": {"id": call.id, "name": call.name, "args": call.arguments}
        }
        if self._reasoning is not None:  # the first call of the turn carries the reasoning
            sealed = signature.encode("".join(self._reasoning))
            if sealed is not None:
                part["thoughtSignature"] = sealed
            self._reasoning = None
        return part

    def _keep_reasoning(self, text: str) -> None:
        if self._reasoning is None:
            return
        self._reasoning_size += len(text)
        if self._reasoning_size > signature.MAX_REASONING_BYTES:
            self._reasoning = None  # too big to carry: the upstream will not get it back
        else:
            self._reasoning.append(text)

    def _count(self, text: str) -> None:
        if text.isascii():
            self._ascii += len(text)
        else:
            ascii_chars = len(text.encode("ascii", "ignore"))
            self._ascii += ascii_chars
            self._other += len(text) - ascii_chars


__all__ = ["GeminiTranslator"]
