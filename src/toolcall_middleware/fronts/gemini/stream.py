"""``GeminiStream``: one Gemini response from the core's events (``core.responder.FrontStream``).

Streaming, each event is one whole ``GenerateContentResponse``: a text delta one ``{"text"}``
part, a reasoning delta (when the client asked for thoughts) one ``{"text", "thought": true}``
part, each call one ``functionCall`` part with its ``args`` object, sent when the call is over
(the core's reader holds its arguments until then: a Gemini call is never split), and last a
chunk with ``finishReason`` and ``usageMetadata``. Framing (``Framing``):

- ``sse`` (``alt=sse``, what both SDKs ask for): exactly ``data: <one line of JSON>`` and a blank
  line per event; no ``event:``, ``id:``, comments, keep-alives or ``[DONE]``, and U+2028,
  U+2029 and U+0085 escaped (the JS SDK's line match stops at them, Python's splitlines too);
- ``array`` (REST's default): one JSON array, ``[{...}\\n,{...}\\n]``.

A failure after the stream started is the bare error object (``failure_bytes``), which the
middleware sends in a write of its own, after a pause: the JS SDK recognises it only when it is
the whole of one read, as Google's own mid-stream errors arrive. In the array form it is the
array's last element. Not streaming, the events are gathered into one response: thoughts, then
text, then the calls.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, cast

import orjson

from .. import core
from ..core.large import Escapes, dumps_large
from ..core.pipeline import Reply, json_reply
from ..core.reader import ARGUMENTS, MAX_ARGUMENTS_BYTES, REASONING, ChatReader
from ..core.wire import Output
from . import signature
from .errors import GeminiError, from_failure
from .request import GeminiRequest
from .response import finish_reason, new_call_id, new_response_id, response, usage_metadata

Framing = Literal["sse", "array"]
#: Strings of this many characters or more are escaped once, apart (``dump``, ``core.large``).
LARGE = 64 * 1024

_LINE_BREAKS = (
    (b"\xe2\x80\xa8", b"\\u2028"),
    (b"\xe2\x80\xa9", b"\\u2029"),
    (b"\xc2\x85", b"\\u0085"),
)


def one_line(data: bytes) -> bytes:
    """JSON text with the characters JavaScript or Python take for line ends escaped (orjson
    writes them raw; they can only stand inside strings, where the escape means the same)."""
    for raw, escaped in _LINE_BREAKS:
        if raw in data:
            data = data.replace(raw, escaped)
    return data


class GeminiStream:
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
        self.stream = framing is not None
        self.framing = framing
        self.model = request.model
        self.include_thoughts = request.include_thoughts
        self.input_tokens = request.input_tokens
        self.context_scale = context_scale
        self.reader = ChatReader(new_call_id, max_arguments_bytes=max_arguments_bytes)
        self.response_id = new_response_id()
        self._done = False
        #: SSE framing: the error object that ended the stream, once one did.
        self.failure_bytes: bytes | None = None
        self._first = True  # array framing: no separator before the first element
        # Every streamed chunk is this head, its parts, this tail (framing included).
        head = b'{"candidates":[{"content":{"role":"model","parts":['
        tail = (
            b']},"index":0}],"modelVersion":'
            + one_line(orjson.dumps(self.model))
            + b',"responseId":"'
            + self.response_id.encode()
            + b'"}'
        )
        self._head = b"data: " + head if framing == "sse" else head
        self._tail = tail + b"\n\n" if framing == "sse" else tail
        # Reasoning before the first call, for its signature (None: not wanted, or too big).
        self._reasoning: list[str] | None = [] if signatures else None
        self._reasoning_size = 0
        self._ascii = self._other = 0  # output characters: the estimate without upstream usage
        # Not streaming: the whole response, capped.
        self.max_answer_bytes = max_answer_bytes
        self._held = 0
        self._thoughts: list[str] = []
        self._texts: list[str] = []
        self._calls: list[dict[str, Any]] = []
        self._final: dict[str, Any] | None = None
        self._failure: core.UpstreamFailure | None = None
        #: The core's fast path (``core.fast_events``): the usual event read undecoded, or
        #: from what the chat path handed; its parts are made as ``_events`` makes them.
        self.fast_event = (
            core.fast_events(self.reader, self._fast_delta, self._fast_general, self)
            if self.stream
            else None
        )

    @property
    def done(self) -> bool:
        return self._done

    @property
    def replaced_bytes(self) -> int:
        return self.reader.replaced_bytes

    # --- FrontStream ----------------------------------------------------------------------

    def head(self) -> bytes:
        return b"[" if self.framing == "array" else b""

    def chunk(self, chunk: Mapping[str, Any]) -> bytes:
        return self._events(self.reader.feed(chunk))

    def completion(self, completion: Mapping[str, Any]) -> bytes:
        return self._events(self.reader.feed_completion(completion))

    def end(self) -> bytes:
        return self._events(self.reader.finish())

    def fail(self, failure: core.UpstreamFailure) -> bytes:
        self.reader.done = True
        if self._done:
            return b""
        self._done = True
        self._failure = failure
        error = orjson.dumps(from_failure(failure).body())
        if self.framing == "array":
            return (b"" if self._first else b"\n,") + error + b"\n]"
        self.failure_bytes = error
        return error

    def result(self) -> Reply:
        if self._failure is not None:
            return self.error(self._failure)
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
            self.model,
            self.response_id,
            final.get("finishReason"),
            final.get("usageMetadata"),
        )
        body = dump(doc, self._held)
        return Reply(200, body, ((b"content-type", b"application/json"),))

    def error(self, failure: core.UpstreamFailure) -> Reply:
        return error_reply(from_failure(failure), failure.retry_after)

    async def settle(self) -> Output:
        return b""

    def learn(self, data: bytes, chunk: dict[str, Any]) -> None:
        """``data`` is the JSON of ``chunk``, about to be fed: the reader may learn from it."""
        if self.fast_event is not None:
            self.reader.learn(data, chunk)

    def _fast_delta(self, kind: int, text: str) -> bytes:
        """``fast_events``' hook: what ``_events`` makes of the one core event read, without
        building it (a text part is already bytes around the escaped text: no template)."""
        return b"" if kind == ARGUMENTS else self._text_part(kind == REASONING, text)

    def _fast_general(self, kind: int, text: str) -> bytes:
        return self._events([self.reader.core_event(kind, text)])

    # --- core events -> Gemini --------------------------------------------------------------

    def _events(self, events: list[core.Event]) -> bytes:
        if not self.stream:
            self._gather(events)
            return b""
        out: list[bytes] = []
        for event in events:
            kind = type(event)
            if kind is core.TextDelta:
                out.append(self._text_part(False, cast(core.TextDelta, event).text))
            elif kind is core.ReasoningDelta:
                out.append(self._text_part(True, cast(core.ReasoningDelta, event).text))
            elif kind is core.CallClosed:
                call = cast(core.CallClosed, event)
                self._count(call.text)
                out.append(self._chunk(dump(self._call_part(call), len(call.text))))
            elif kind is core.Finish:
                out.append(self._finish(cast(core.Finish, event)))
            elif kind is core.UpstreamError:
                out.append(self.fail(cast(core.UpstreamError, event).failure))
            # CallOpened and ArgsDelta: the reader holds the arguments until the call ends.
        return b"".join(out)

    def _gather(self, events: list[core.Event]) -> None:
        """Not streaming: keep what the one response will hold, up to ``max_answer_bytes``."""
        for event in events:
            if isinstance(event, core.TextDelta):
                self._count(event.text)
                self._held += len(event.text)
                self._texts.append(event.text)
            elif isinstance(event, core.ReasoningDelta):
                self._count(event.text)
                self._keep_reasoning(event.text)
                if self.include_thoughts:
                    self._held += len(event.text)
                    self._thoughts.append(event.text)
            elif isinstance(event, core.CallClosed):
                self._count(event.text)
                self._held += len(event.text)
                self._calls.append(self._call_part(event))
            elif isinstance(event, core.Finish):
                self._finish(event)
            elif isinstance(event, core.UpstreamError):
                self._failure = event.failure
                self._done = True
            if self._held > self.max_answer_bytes and not self._done:
                self.reader.done = True
                self._done = True
                message = f"upstream answer over {self.max_answer_bytes} bytes"
                self._failure = core.UpstreamFailure("server", message)
                self._texts, self._thoughts, self._calls = [], [], []

    def _text_part(self, thought: bool, text: str) -> bytes:
        """The chunk of one text or reasoning delta (none for reasoning not asked for)."""
        self._count(text)
        if not thought:
            return self._chunk(b'{"text":' + dump_text(text) + b"}")
        self._keep_reasoning(text)
        if not self.include_thoughts:
            return b""
        return self._chunk(b'{"text":' + dump_text(text) + b',"thought":true}')

    def _chunk(self, parts: bytes) -> bytes:
        if self.framing == "sse":
            return self._head + parts + self._tail
        if self._first:
            self._first = False
            return self._head + parts + self._tail
        return b"\n," + self._head + parts + self._tail

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

    def _finish(self, finish: core.Finish) -> bytes:
        """The last chunk; the response is done only once its bytes exist (until then,
        ``fail`` still ends it with the API's error)."""
        output_tokens = -(-self._ascii // 4) + self._other
        usage = usage_metadata(finish.usage, self.input_tokens, output_tokens, self.context_scale)
        reason = finish_reason(finish.reason)
        if not self.stream:
            self._final = {"finishReason": reason, "usageMetadata": usage}
            self._done = True
            return b""
        doc = response([{"text": ""}], self.model, self.response_id, reason, usage)
        data = one_line(orjson.dumps(doc))
        self._done = True
        if self.framing == "sse":
            return b"data: " + data + b"\n\n"
        return (data if self._first else b"\n," + data) + b"\n]"

    def _count(self, text: str) -> None:
        if text.isascii():
            self._ascii += len(text)
        else:
            ascii_chars = len(text.encode("ascii", "ignore"))
            self._ascii += ascii_chars
            self._other += len(text) - ascii_chars


def _joined(pieces: list[str]) -> str:
    """The pieces as one text; the list is emptied, so that only the text is held."""
    text = "".join(pieces)
    pieces.clear()
    return text


def dump_text(text: str) -> bytes:
    """A string as JSON on one line."""
    data = orjson.dumps(text)
    return data if text.isascii() else one_line(data)


def dump(doc: Any, size: int) -> bytes:
    """``doc`` as JSON on one line. Past ``LARGE`` characters of strings in it (``size``), each
    large string escaped once (``core.large``): orjson reserves several times the length of a
    string it escapes, so one large call or answer would cost far more memory than it holds.
    The standard library writes what orjson refuses to (call arguments nested past its 255
    levels)."""
    if size < LARGE:
        try:
            return one_line(orjson.dumps(doc))
        except orjson.JSONEncodeError:
            return one_line(json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode())
    return one_line(dumps_large(doc, Escapes(one_line)))


def error_reply(error: GeminiError, retry_after: bytes | None = None) -> Reply:
    extra = [(b"retry-after", retry_after)] if retry_after else []
    return json_reply(error.code, error.body(), extra)


__all__ = ["Framing", "GeminiStream", "dump", "error_reply", "one_line"]
