"""OpenAI ``chat.completion.chunk`` dicts -> Anthropic Messages stream events (sans-I/O).

The translator knows nothing of SSE or ASGI: chunk dicts go in, ``(event_type, data)`` pairs come
out, in the order CLIENTS.md requires: ``message_start``, then content blocks one at a time
(``content_block_start``, deltas, ``content_block_stop``, with contiguous indexes), then
``message_delta`` with the stop reason and cumulative usage, then ``message_stop``.

Reasoning text becomes ``thinking`` blocks, content becomes ``text`` blocks, every tool call its
own ``tool_use`` block. The core's ``ChatReader`` reads the chunks: native ``tool_calls`` quirks
and interleaved parallel calls are the normaliser's business, and calls come out one after
another, which is what Anthropic's one-open-block rule needs.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Mapping
from typing import Any

import orjson

from .. import core
from ..core import ids
from ..core.failures import UpstreamFailure
from ..core.finish import incomplete_message, outcome
from ..core.numbers import count
from ..core.reader import ARGUMENTS, CONTENT, MAX_ARGUMENTS_BYTES, REASONING, ChatReader
from ..core.templates import EventTemplate
from ..core.translator import Translator
from ..core.wire import LARGE_STRING, event_head
from . import thinking
from .errors import AnthropicError, from_failure

Event = tuple[str, dict[str, Any]]

_ALPHABET = string.ascii_letters + string.digits
_join, _dumps = b"".join, orjson.dumps


def new_message_id() -> str:
    return "msg_" + "".join(secrets.choice(_ALPHABET) for _ in range(24))


class StreamTranslator(Translator):
    """One Anthropic message from one upstream answer. Feed it chunk dicts in order (or a whole
    completion), then ``finish``."""

    def __init__(
        self,
        model: str,
        *,
        message_id: str | None = None,
        input_tokens: int = 0,
        stop_sequences: tuple[str, ...] = (),
        buffer_tool_input: bool = False,
        max_arguments_bytes: int = MAX_ARGUMENTS_BYTES,
        max_answer_bytes: int | None = None,
    ) -> None:
        self.model = model
        #: Hold each call's arguments until the call ends and send them as one valid JSON
        #: object (invalid text wrapped as ``{"input": text}``): Anthropic SDKs raise on tool
        #: input that does not parse, so a model that writes broken JSON would otherwise fail
        #: the whole response. Costs the live streaming of arguments.
        self.buffer_tool_input = buffer_tool_input
        self.message_id = message_id or new_message_id()
        self.input_tokens = input_tokens
        self.stop_sequences = stop_sequences
        self.reader = ChatReader(
            ids.new_id, max_arguments_bytes=max_arguments_bytes, max_answer_bytes=max_answer_bytes
        )
        self.done = False
        self._next_index = 0
        self._open: str | None = None  # "thinking", "text", "tool_use" or None
        #: The kind of text the open block takes on the fast path (``reader.REASONING``,
        #: ``CONTENT``, ``ARGUMENTS``; -1: none), and its delta event's bytes (None for tool
        #: input that is held).
        self._fast_kind = -1
        self._fast_template: EventTemplate | None = None
        self._out_ascii = 0
        self._out_other = 0

    @property
    def dropped_fragments(self) -> int:
        """Argument text that arrived for a call already closed (a gateway resending the
        whole arguments, say): dropped, since the client has the call's input already."""
        return self.reader.dropped_fragments

    @property
    def dropped_calls(self) -> int:
        """Calls that never got a name: dropped, since a tool_use block needs one."""
        return self.reader.dropped_calls

    # --- public API -------------------------------------------------------------------------

    def start(self) -> list[Event]:
        message: dict[str, Any] = {
            "id": self.message_id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": self.input_tokens,
                "output_tokens": 0,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
        return [("message_start", {"type": "message_start", "message": message})]

    def fail(self, error: AnthropicError) -> list[Event]:
        """End the stream with an ``error`` event (the client has a 200 already), also when
        the message's end was made but could not be written (``EventStream.fail``)."""
        self.reader.done = True
        self.done = True
        return [("error", error.body())]

    # --- core events -> Anthropic events ----------------------------------------------------

    def on_args(self, event: core.ArgsDelta, out: list[Event]) -> None:
        if len(event.fragment) >= LARGE_STRING:
            self.large = True
        self._count(event.fragment)
        if not self.buffer_tool_input:
            out.append(self._block_delta(_delta("tool_use", event.fragment)))

    def on_text(self, event: core.TextDelta, out: list[Event]) -> None:
        self._text("text", event.text, out)

    def on_reasoning(self, event: core.ReasoningDelta, out: list[Event]) -> None:
        self._text("thinking", event.text, out)

    def on_call_opened(self, event: core.CallOpened, out: list[Event]) -> None:
        self._close(out)
        self._open = "tool_use"
        tool_id = ids.encode(event.id) if event.upstream_id else event.id
        block = {"type": "tool_use", "id": tool_id, "name": event.name, "input": {}}
        out.append(self._block_start(block))

    def on_call_closed(self, event: core.CallClosed, out: list[Event]) -> None:
        if self.buffer_tool_input:
            if len(event.text) >= LARGE_STRING:
                self.large = True
            out.append(self._block_delta(_delta("tool_use", event.text)))
        self._close(out)

    def on_finish(self, event: core.Finish, out: list[Event]) -> None:
        out += self._message_end(event)

    def on_error(self, event: core.UpstreamError, out: list[Event]) -> None:
        out += self.fail(from_failure(event.failure))

    def _text(self, kind: str, text: str, out: list[Event]) -> None:
        self._count(text)
        if len(text) >= LARGE_STRING:
            self.large = True
        if self._open != kind:
            self._close(out)
            self._open = kind
            block: dict[str, Any] = (
                {"type": "thinking", "thinking": "", "signature": ""}
                if kind == "thinking"
                else {"type": "text", "text": ""}
            )
            out.append(self._block_start(block))
        out.append(self._block_delta(_delta(kind, text)))

    def fast_delta(self, kind: int, text: str) -> bytes | None:
        """``Translator.fast_delta``: a delta of the open block, from its template."""
        if kind != self._fast_kind or len(text) >= LARGE_STRING:
            return None
        if text.isascii():
            self._out_ascii += len(text)
        else:
            self._count(text)
        template = self._fast_template
        if template is None:
            return b""  # tool input held: it is sent whole when the call ends
        return _join((template.head, _dumps(text), template.tail))  # ``render_text``, inline

    # --- blocks -----------------------------------------------------------------------------

    def _block_start(self, block: dict[str, Any]) -> Event:
        index = self._next_index
        self._next_index += 1
        kind = block["type"]
        self._fast_kind, self._fast_template = -1, None
        if kind == "tool_use" and self.buffer_tool_input:
            self._fast_kind = ARGUMENTS
        else:
            self._fast_template = delta_template(index, kind)
            self._fast_kind = _FAST_KINDS[kind]
        return (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": block},
        )

    def _block_delta(self, delta: dict[str, Any]) -> Event:
        index = self._next_index - 1
        return (
            "content_block_delta",
            {"type": "content_block_delta", "index": index, "delta": delta},
        )

    def _close(self, out: list[Event]) -> None:
        if self._open is None:
            return
        if self._open == "thinking":
            out.append(
                self._block_delta({"type": "signature_delta", "signature": thinking.SIGNATURE})
            )
        out.append(
            ("content_block_stop", {"type": "content_block_stop", "index": self._next_index - 1})
        )
        self._open = None
        self._fast_kind = -1

    # --- end of message ---------------------------------------------------------------------

    def _message_end(self, finish: core.Finish) -> list[Event]:
        out: list[Event] = []
        self._close(out)
        if outcome(finish.reason) == "incomplete":
            # Stopped early for a reason no stop reason says (or one nobody knows): Anthropic's
            # only end that is not a success is the error.
            failure = UpstreamFailure("server", incomplete_message(finish.reason))
            return out + self.fail(from_failure(failure))
        stop_reason, stop_sequence = self._stop_reason(finish)
        out.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop_reason, "stop_sequence": stop_sequence},
                    "usage": self._final_usage(finish.usage),
                },
            )
        )
        out.append(("message_stop", {"type": "message_stop"}))
        self.done = True
        return out

    def _stop_reason(self, finish: core.Finish) -> tuple[str, str | None]:
        ended = outcome(finish.reason)
        # A call cut off by max_tokens must not be run: length wins over tool_use, as in
        # Anthropic's own API.
        if ended == "length":
            return "max_tokens", None
        if ended == "content_filter":
            return "refusal", None
        if finish.tool_calls:
            return "tool_use", None
        matched = finish.matched_stop
        if matched is not None and matched in self.stop_sequences:
            return "stop_sequence", matched
        return "end_turn", None

    def _final_usage(self, usage: Mapping[str, Any] | None) -> dict[str, Any]:
        if usage is None:  # the upstream ignored include_usage: estimate
            return {"output_tokens": -(-self._out_ascii // 4) + self._out_other}
        return map_usage(usage)

    def _count(self, text: str) -> None:
        ascii_chars = len(text.encode("ascii", "ignore"))
        self._out_ascii += ascii_chars
        self._out_other += len(text) - ascii_chars


#: What text each block takes on the fast path.
_FAST_KINDS = {"thinking": REASONING, "text": CONTENT, "tool_use": ARGUMENTS}


#: The delta's type and its text's field, per kind of block.
_DELTA_FIELDS = {
    "thinking": ("thinking_delta", "thinking"),
    "text": ("text_delta", "text"),
    "tool_use": ("input_json_delta", "partial_json"),
}


def _delta(block: str, text: str) -> dict[str, str]:
    """The delta of a ``thinking``, ``text`` or ``tool_use`` block carrying ``text``."""
    kind, field = _DELTA_FIELDS[block]
    return {"type": kind, field: text}


def delta_template(index: int, block: str) -> EventTemplate:
    """The ``content_block_delta`` event of block ``index`` (a ``block`` block) carrying a
    text, as ``_block_delta(_delta(block, text))`` encodes it, around the text (proved equal
    in ``tests/fronts/test_templates.py``)."""
    kind, field = _DELTA_FIELDS[block]
    head = event_head("content_block_delta") + b'{"type":"content_block_delta","index":%d' % index
    head += b',"delta":{"type":"' + kind.encode() + b'","' + field.encode() + b'":'
    return EventTemplate(head, b"", b"}}\n\n")


def map_usage(usage: Mapping[str, Any]) -> dict[str, int]:
    """OpenAI usage -> Anthropic usage (cached prompt tokens are reported apart)."""
    prompt = count(usage.get("prompt_tokens"))
    details = usage.get("prompt_tokens_details")
    cached = count(details.get("cached_tokens")) if isinstance(details, Mapping) else 0
    if not cached:
        cached = count(usage.get("prompt_cache_hit_tokens"))  # DeepSeek
    return {
        "input_tokens": max(prompt - cached, 0),
        "output_tokens": count(usage.get("completion_tokens")),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": cached,
    }
