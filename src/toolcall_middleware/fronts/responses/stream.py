"""The core's events -> Responses stream events (sans-I/O).

``response.created`` and ``response.in_progress``, then output items, then exactly one terminal
event (``response.completed`` / ``.incomplete`` / ``.failed``) carrying the whole ``output``
and ``usage``. Every event has ``type`` and ``sequence_number`` (from 0, +1 per event). One
reasoning or message item is open at a time (Codex keeps a single active item, and a delta
without one is an error there); the core gives calls one after another. ``output_index`` is
dense from 0 in opening order, ``content_index`` always 0, item ids ``rs_``/``msg_``/``fc_``/
``ctc_`` + the response id's hex + the output index.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import orjson

from .. import core
from ..core.events import (
    ArgsDelta,
    CallClosed,
    CallOpened,
    Finish,
    ReasoningDelta,
    TextDelta,
    UpstreamError,
)
from ..core.failures import UpstreamFailure
from ..core.finish import outcome
from ..core.reader import ARGUMENTS, CONTENT, MAX_ARGUMENTS_BYTES, REASONING, ChatReader
from ..core.templates import EventTemplate
from ..core.translator import Translator
from ..core.wire import LARGE_STRING
from . import items
from .errors import stream_error
from .items import OpenItem
from .request import ResponsesRequest
from .usage import usage_of

Event = tuple[str, dict[str, Any]]

#: ``incomplete_details.reason`` per outcome (``core.finish``); another incomplete answer
#: carries the upstream's own finish reason.
_INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}
#: What text each item takes on the fast path.
_FAST_KINDS = {"reasoning": REASONING, "output_text": CONTENT}
_join, _dumps, _Fragment = b"".join, orjson.dumps, orjson.Fragment


class ResponseTranslator(Translator):
    """One Response from one upstream answer."""

    def __init__(
        self,
        request: ResponsesRequest,
        *,
        reasoning_as: str = "content",
        response_id: str | None = None,
        previous_response_id: str | None = None,
        max_arguments_bytes: int = MAX_ARGUMENTS_BYTES,
        max_answer_bytes: int | None = None,
    ) -> None:
        self.request = request
        self.previous_response_id = previous_response_id
        self.reasoning_as = reasoning_as
        #: The type of each kind of item's delta events.
        self._delta_types = items.delta_types(reasoning_as)
        self.id = response_id or "resp_" + secrets.token_hex(12)
        self._hex = self.id.removeprefix("resp_")
        # Each item's id: its kind's prefix and its index.
        self._rs_prefix, self._msg_prefix, self._fc_prefix, self._ctc_prefix = (
            f"{kind}_{self._hex}_" for kind in ("rs", "msg", "fc", "ctc")
        )
        self._call_count = 0
        # The final output holds the whole answer: cap it (``max_answer_bytes``).
        self.reader = ChatReader(
            self._call_id,
            max_arguments_bytes=max_arguments_bytes,
            max_answer_bytes=max_answer_bytes,
        )
        self.created_at = int(time.time())
        self.seq = 0
        self._seq_mark = 0  # the sequence number of the first event ``_translate`` made last
        #: The output items so far: each done item as its JSON (``_keep_done``), the open one
        #: as a dict.
        self.output: list[dict[str, Any] | bytes] = []
        #: Some done item holds a large string: the response is written as a large document.
        self.large_output = False
        self.open: OpenItem | None = None
        self.call: dict[str, Any] | None = None  # the open function call item
        self.call_custom = False
        #: ``_client_name`` per name the upstream called, once known.
        self._call_names: dict[str, tuple[str | None, str, bool]] = {}
        #: The fast path's delta event of the open item or function call: the kind of text it
        #: takes (``reader.REASONING``, ``CONTENT`` or ``ARGUMENTS``; -1: none), its bytes
        #: around the sequence number and the text, and where the item keeps its text (None:
        #: a call, whose arguments the reader keeps).
        self._fast_kind = -1
        self._fast_head = self._fast_middle = self._fast_tail = b""
        self._fast_parts: list[str] | None = None
        #: The terminal event's response object, once there is one.
        self.response: dict[str, Any] | None = None
        #: What ended the response with ``response.failed``, if anything did.
        self.failure: UpstreamFailure | None = None
        self.done = False

    # --- input ------------------------------------------------------------------------------

    def start(self) -> list[Event]:
        # Both carry this snapshot, which echoes the request's tools and instructions (tens of
        # KB from Codex): encoded once, by orjson as the head always is (``large`` is never
        # set before the first chunk), so an ``orjson.Fragment`` can carry it.
        snapshot = _Fragment(_dumps(self._response("in_progress", [])))
        return [
            self._event("response.created", response=snapshot),
            self._event("response.in_progress", response=snapshot),
        ]

    def fail(self, failure: UpstreamFailure) -> list[Event]:
        """End with ``response.failed`` (an open call is left unfinished: never run it), also
        when the response's end was made but could not be written (``EventStream.fail``)."""
        self.reader.done = True
        self.done = True
        out = self._close_text()
        self.failure = failure
        self._whole_output()
        self.response = self._response("failed", self.output, error=stream_error(failure))
        out.append(self._event("response.failed", response=self.response))
        return out

    # --- core events ------------------------------------------------------------------------

    def _translate(self, events: list[core.Event]) -> list[Event]:
        """``Translator._translate``, the sequence number its first event takes kept first
        (``rewind``)."""
        self._seq_mark = self.seq
        return Translator._translate(self, events)

    def on_reasoning(self, event: ReasoningDelta, out: list[Event]) -> None:
        self._text("reasoning", event.text, out)

    def on_text(self, event: TextDelta, out: list[Event]) -> None:
        self._text("refusal" if event.channel == "refusal" else "output_text", event.text, out)

    def on_args(self, event: ArgsDelta, out: list[Event]) -> None:
        call = self.call
        if len(event.fragment) >= LARGE_STRING:
            self.large = True
        if call is not None and not self.call_custom:
            seq = self.seq
            self.seq = seq + 1
            index = len(self.output) - 1
            out.append(items.arguments_delta(call["id"], index, seq, event.fragment))

    def on_error(self, event: UpstreamError, out: list[Event]) -> None:
        out += self.fail(event.failure)

    def rewind(self) -> None:
        """``Translator.rewind``: the failure takes the first sequence number the events that
        were not written took."""
        self.seq = self._seq_mark

    def fast_delta(self, kind: int, text: str) -> bytes | None:
        """``Translator.fast_delta``: a delta of the open item, or of the open function call,
        from its template (the general path makes every other event)."""
        if kind != self._fast_kind or len(text) >= LARGE_STRING:
            # A custom call's input is sent whole at its end: nothing for its pieces.
            return (
                b""
                if kind == ARGUMENTS
                and self.call is not None
                and self.call_custom
                and len(text) < LARGE_STRING
                else None
            )
        parts = self._fast_parts
        if parts is not None:
            parts.append(text)
        seq = self.seq
        self.seq = seq + 1
        # ``EventTemplate.render``, inline: once per event.
        return _join(
            (self._fast_head, b"%d" % seq, self._fast_middle, _dumps(text), self._fast_tail)
        )

    def _fast(self, kind: int, template: EventTemplate, parts: list[str] | None) -> None:
        """What the fast path sends next: ``kind`` deltas from ``template``."""
        self._fast_kind = kind
        self._fast_head, self._fast_middle = template.head, template.middle
        self._fast_tail, self._fast_parts = template.tail, parts

    def _text(self, kind: str, text: str, out: list[Event]) -> None:
        item = self.open
        if item is None or item.kind != kind:
            out += self._close_text()
            item = self._open_text(kind, out)
        item.parts.append(text)
        if len(text) >= LARGE_STRING:
            self.large = True
        seq = self.seq
        self.seq = seq + 1
        out.append(items.text_delta(self._delta_types[kind], item.id, item.index, seq, text))

    def _open_text(self, kind: str, out: list[Event]) -> OpenItem:
        index = len(self.output)
        prefix = self._rs_prefix if kind == "reasoning" else self._msg_prefix
        item = self.open = OpenItem(kind, f"{prefix}{index}", index)
        seq = self.seq
        self.seq = seq + 2
        shell, events = items.opened(kind, item.id, index, seq, self.reasoning_as)
        out += events
        self.output.append(shell)  # replaced by the whole item when it is done
        fast_kind = _FAST_KINDS.get(kind, -1)
        if fast_kind != -1:
            template = items.text_delta_template(self._delta_types[kind], item.id, index)
            self._fast(fast_kind, template, item.parts)
        return item

    def _close_text(self) -> list[Event]:
        item, self.open = self.open, None
        if item is None:
            return []
        self._fast_kind = -1
        text = "".join(item.parts)
        # The pieces go now: only the whole text is held until the response ends.
        item.parts = self._fast_parts = []
        if len(text) >= LARGE_STRING:
            self.large = True
        seq = self.seq
        self.seq = seq + 3
        encrypted = self.request.encrypted_reasoning
        whole, events = items.closed(
            item.kind, item.id, item.index, seq, text, self.reasoning_as, encrypted
        )
        # (Encrypted reasoning holds the text again, longer: a message holds none.)
        encrypted_content = whole.get("encrypted_content") or ""
        self._keep_done(item.index, whole, max(len(encrypted_content), len(text)))
        return events

    # --- calls ------------------------------------------------------------------------------

    def on_call_opened(self, event: CallOpened, out: list[Event]) -> None:
        if self.open is not None:
            out += self._close_text()
        namespace, name, custom = self._call_names.get(event.name) or self._client_name(event.name)
        self.call_custom = custom
        index = len(self.output)
        item_id = f"{self._ctc_prefix if custom else self._fc_prefix}{index}"
        item = items.call_item(custom, item_id, event.id, name, namespace)
        self.call = item
        self.output.append(item)
        if custom:  # sent whole at its end, input unwrapped: the fast path sends no pieces
            self._fast_kind = -1
            return
        self._fast(ARGUMENTS, items.arguments_delta_template(item_id, index), None)
        seq = self.seq
        self.seq = seq + 1
        out.append(items.call_added(seq, index, item))

    def _client_name(self, flat: str) -> tuple[str | None, str, bool]:
        """``(namespace, name, custom)`` for a call the upstream made to ``flat``."""
        names = self.request.names
        namespace, name = names.client_name(flat)
        known = self._call_names[flat] = (namespace, name, flat in names.custom)
        return known

    def on_call_closed(self, event: CallClosed, out: list[Event]) -> None:
        item, self.call = self.call, None
        self._fast_kind = -1
        if item is None:
            return
        index = self._index_of(item)
        raw = event.raw
        if len(raw) >= LARGE_STRING:
            self.large = True
        if self.call_custom:
            self._custom_call_end(event, item, index, out)
            return
        seq = self.seq
        self.seq = seq + 2
        out += items.call_closing(item, index, seq, raw)
        self._keep_done(index, item, len(raw))

    def _custom_call_end(
        self, event: CallClosed, item: dict[str, Any], index: int, out: list[Event]
    ) -> None:
        """A custom call is sent whole at its end, its input unwrapped."""
        value = event.arguments.get("input")
        text = value if isinstance(value, str) and len(event.arguments) == 1 else event.raw
        seq = self.seq
        self.seq = seq + 4
        out += items.custom_call_events(seq, index, item, text)
        self._keep_done(index, item, len(event.raw))

    def _keep_done(self, index: int, item: dict[str, Any], size: int) -> None:
        """Keep a done output item until the response ends as its JSON, which the garbage
        collector never has to walk (a long answer keeps thousands of items; as dicts holding
        lists they made every collection slower as the answer grew); or, when it holds a large
        string (``size``: its longest), as it is, for the encoder of large documents."""
        if size >= LARGE_STRING:
            self.output[index] = item
            self.large_output = True
        else:
            self.output[index] = _dumps(item)

    def _index_of(self, item: dict[str, Any]) -> int:
        # The open call is always the last output item.
        assert self.output and self.output[-1] is item
        return len(self.output) - 1

    def _call_id(self) -> str:
        self._call_count += 1
        return f"call_{self._hex}_{self._call_count}"

    # --- the end ----------------------------------------------------------------------------

    def on_finish(self, event: Finish, out: list[Event]) -> None:
        out += self._close_text()
        self.done = True
        self._whole_output()
        ended = outcome(event.reason)
        usage = usage_of(event.usage)
        if ended == "complete":
            self.response = self._response("completed", self.output, usage=usage)
            self.response["completed_at"] = int(time.time())
            out.append(self._event("response.completed", response=self.response))
        else:
            reason = _INCOMPLETE.get(ended, event.reason)
            self.response = self._response(
                "incomplete", self.output, usage=usage, incomplete={"reason": reason}
            )
            out.append(self._event("response.incomplete", response=self.response))

    def _whole_output(self) -> None:
        """The terminal event carries every item: large when one of them is (a long answer of
        many small items is not: orjson's cost is per string, not per document)."""
        if self.large_output:
            self.large = True

    def _response(
        self,
        status: str,
        output: list[dict[str, Any] | bytes],
        *,
        usage: dict[str, Any] | None = None,
        error: dict[str, str] | None = None,
        incomplete: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "model": self.request.model,
            "output": self._output_items(output),
            **self.request.echo,
            "error": error,
            "incomplete_details": incomplete,
            "previous_response_id": self.previous_response_id,
            "truncation": "disabled",
            "usage": usage,
        }

    def _output_items(self, output: list[dict[str, Any] | bytes]) -> list[Any]:
        """The items for a response object: each done item's JSON as an ``orjson.Fragment``
        (orjson writes it as it is, also in a large response: ``core.large``)."""
        return [_Fragment(item) if type(item) is bytes else item for item in output]

    def _event(self, kind: str, **fields: Any) -> Event:
        data = {"type": kind, "sequence_number": self.seq, **fields}
        self.seq += 1
        return kind, data
