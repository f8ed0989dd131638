"""OpenAI ``chat.completion.chunk`` dicts -> Anthropic Messages stream events (sans-I/O).

The translator knows nothing of SSE or ASGI: chunk dicts go in, ``(event_type, data)`` pairs come
out, in the order CLIENTS.md requires: ``message_start``, then content blocks one at a time
(``content_block_start``, deltas, ``content_block_stop``, with contiguous indexes), then
``message_delta`` with the stop reason and cumulative usage, then ``message_stop``.

Reasoning text becomes ``thinking`` blocks, content becomes ``text`` blocks, every tool call its
own ``tool_use`` block. Only one block may be open, so a tool call that starts while another is
still receiving arguments (parallel calls interleaved by a gateway) is buffered, and started once
the open call's arguments form a complete JSON value, or at the end of the stream.
"""

from __future__ import annotations

import re
import secrets
import string
from collections.abc import Mapping
from typing import Any

import orjson

from . import ids, thinking
from .errors import AnthropicError, from_stream_error

Event = tuple[str, dict[str, Any]]

_ALPHABET = string.ascii_letters + string.digits
_JSON_SPECIAL = re.compile(r'["\\{}\[\]]')


def new_message_id() -> str:
    return "msg_" + "".join(secrets.choice(_ALPHABET) for _ in range(24))


class _JSONEnd:
    """Tells when streamed text has become one complete JSON object, array or string.

    Linear: a regex jumps between the characters that matter (quotes, backslashes, brackets).
    """

    __slots__ = ("_depth", "_escape", "_in_string", "_started", "complete")

    def __init__(self) -> None:
        self.complete = False
        self._started = False
        self._depth = 0
        self._in_string = False
        self._escape = False

    def feed(self, text: str) -> None:
        if self.complete:
            return
        pos = 0
        if not self._started:
            stripped = text.lstrip()
            if not stripped:
                return
            if stripped[0] not in '{["':
                self.complete = False  # a bare scalar: only the end of the stream ends it
                self._started = True
                self._depth = -1
                return
            self._started = True
            pos = len(text) - len(stripped)
        if self._depth < 0:
            return
        if self._escape:
            self._escape = False
            pos += 1
        size = len(text)
        while pos < size:
            m = _JSON_SPECIAL.search(text, pos)
            if m is None:
                return
            c = m.group()
            pos = m.end()
            if self._in_string:
                if c == "\\":
                    if pos == size:
                        self._escape = True
                    pos += 1
                elif c == '"':
                    self._in_string = False
                    if self._depth == 0:
                        self.complete = True
                        return
            elif c == '"':
                self._in_string = True
            elif c in "{[":
                self._depth += 1
            elif c in "}]":
                self._depth -= 1
                if self._depth == 0:
                    self.complete = True
                    return


class _Call:
    __slots__ = ("args", "block", "closed", "end", "id", "name")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.args: list[str] = []  # fragments held while the call is buffered
        self.end = _JSONEnd()
        self.block: int | None = None  # our block index once started
        self.closed = False


class StreamTranslator:
    """One Anthropic message from one upstream stream. Feed it chunk dicts in order."""

    def __init__(
        self,
        model: str,
        *,
        message_id: str | None = None,
        input_tokens: int = 0,
        stop_sequences: tuple[str, ...] = (),
        buffer_tool_input: bool = False,
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
        self.done = False
        #: argument text that arrived for a call already closed (a gateway resending the
        #: whole arguments, say): dropped, since the client has the call's input already.
        self.dropped_fragments = 0
        #: calls that never got a name: dropped, since a tool_use block needs one.
        self.dropped_calls = 0
        self._next_index = 0
        self._open: str | None = None  # "thinking", "text", "tool_use" or None
        self._open_call: _Call | None = None
        self._calls: dict[int, _Call] = {}
        self._pending: list[_Call] = []  # calls seen but not started, in order of appearance
        self._last_call_index = 0
        self._tool_used = False
        self._finish_reason: str | None = None
        self._matched_stop: str | None = None
        self._usage: Mapping[str, Any] | None = None
        self._out_ascii = 0
        self._out_other = 0

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

    def feed(self, chunk: Mapping[str, Any]) -> list[Event]:
        if self.done:
            return []
        out: list[Event] = []
        if "error" in chunk and not chunk.get("choices"):
            return self.fail(from_stream_error(chunk))
        usage = chunk.get("usage")
        if isinstance(usage, Mapping):
            self._usage = usage
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            return out
        for choice in choices:
            # Anthropic has no ``n``: we never ask for more than one choice.
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, Mapping):
                self._delta(delta, out)
            finish = choice.get("finish_reason")
            if isinstance(finish, str) and finish:
                self._finish_reason = finish
                matched = choice.get("stop_reason")  # vLLM: the stop string that matched
                if isinstance(matched, str) and matched in self.stop_sequences:
                    self._matched_stop = matched
        return out

    def finish(self) -> list[Event]:
        """The upstream stream ended (``[DONE]`` or end of body)."""
        if self.done:
            return []
        if self._finish_reason is None:
            message = "upstream stream ended before the response was complete"
            return self.fail(AnthropicError(message, "api_error"))
        out: list[Event] = []
        self._close(out)
        for call in self._pending:
            if call.name is None:
                self.dropped_calls += 1
                continue
            self._start_call(call, out)
            self._close(out)
        self._pending.clear()
        stop_reason, stop_sequence = self._stop_reason()
        out.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop_reason, "stop_sequence": stop_sequence},
                    "usage": self._final_usage(),
                },
            )
        )
        out.append(("message_stop", {"type": "message_stop"}))
        self.done = True
        return out

    def fail(self, error: AnthropicError) -> list[Event]:
        """End the stream with an ``error`` event (the client has a 200 already)."""
        if self.done:
            return []
        self.done = True
        return [("error", error.body())]

    # --- deltas -----------------------------------------------------------------------------

    def _delta(self, delta: Mapping[str, Any], out: list[Event]) -> None:
        # ``reasoning`` and ``reasoning_content`` often carry the same text: take one.
        reasoning = delta.get("reasoning_content")
        if not isinstance(reasoning, str) or not reasoning:
            reasoning = delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            self._text("thinking", reasoning, out)
        for key in ("content", "refusal"):
            text = delta.get(key)
            if isinstance(text, str) and text:
                self._text("text", text, out)
        calls = delta.get("tool_calls")
        if isinstance(calls, list) and calls:
            for entry in calls:
                if isinstance(entry, Mapping):
                    self._tool_delta(entry, out)
            self._advance(out)

    def _text(self, kind: str, text: str, out: list[Event]) -> None:
        self._count(text)
        if self._open != kind:
            self._close(out)
            self._flush_complete_calls(out)
            self._open = kind
            block: dict[str, Any] = (
                {"type": "thinking", "thinking": "", "signature": ""}
                if kind == "thinking"
                else {"type": "text", "text": ""}
            )
            out.append(self._block_start(block))
        if kind == "thinking":
            delta = {"type": "thinking_delta", "thinking": text}
        else:
            delta = {"type": "text_delta", "text": text}
        out.append(self._block_delta(delta))

    def _tool_delta(self, entry: Mapping[str, Any], out: list[Event]) -> None:
        index = entry.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            index = self._last_call_index  # index-less continuation of the latest call
        self._last_call_index = index
        call = self._calls.get(index)
        if call is None:
            call = self._calls[index] = _Call()
            self._pending.append(call)
        function = entry.get("function")
        if not isinstance(function, Mapping):
            function = entry  # Kilo-style shorthand: name/arguments on the entry itself
        call_id = entry.get("id")
        if call.id is None and isinstance(call_id, str) and call_id:
            call.id = call_id
        name = function.get("name")
        if call.name is None and isinstance(name, str) and name:
            call.name = name
        args = function.get("arguments")
        if isinstance(args, Mapping) and not call.args and call.block is None:
            args = orjson.dumps(args).decode()  # an already-parsed object
        if not isinstance(args, str) or not args:
            return
        if call.closed:
            if args.strip():
                self.dropped_fragments += 1
            return
        self._count(args)
        call.end.feed(args)
        if call.block is not None and not self.buffer_tool_input:
            out.append(self._block_delta({"type": "input_json_delta", "partial_json": args}))
        else:
            call.args.append(args)

    def _advance(self, out: list[Event]) -> None:
        """Start buffered calls while nothing blocks them, in order of appearance."""
        while self._pending and self._pending[0].name is not None:
            current = self._open_call
            if current is not None and not current.end.complete:
                return
            self._close(out)
            self._start_call(self._pending.pop(0), out)

    def _flush_complete_calls(self, out: list[Event]) -> None:
        """Before new text: emit the buffered calls that are whole (they came first)."""
        while self._pending and self._pending[0].name is not None and self._pending[0].end.complete:
            self._start_call(self._pending.pop(0), out)
            self._close(out)

    # --- blocks -----------------------------------------------------------------------------

    def _start_call(self, call: _Call, out: list[Event]) -> None:
        assert call.name is not None
        tool_id = ids.encode(call.id) if call.id else ids.new_id()
        self._open = "tool_use"
        self._open_call = call
        self._tool_used = True
        call.block = self._next_index
        block = {"type": "tool_use", "id": tool_id, "name": call.name, "input": {}}
        out.append(self._block_start(block))
        if call.args and not self.buffer_tool_input:
            joined = "".join(call.args)
            call.args.clear()
            out.append(self._block_delta({"type": "input_json_delta", "partial_json": joined}))

    def _block_start(self, block: dict[str, Any]) -> Event:
        index = self._next_index
        self._next_index += 1
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
        call = self._open_call
        if call is not None:
            if call.args:  # buffered arguments
                text = input_json("".join(call.args))
                call.args.clear()
                out.append(self._block_delta({"type": "input_json_delta", "partial_json": text}))
            call.closed = True
            self._open_call = None
        out.append(
            ("content_block_stop", {"type": "content_block_stop", "index": self._next_index - 1})
        )
        self._open = None

    # --- end of message ---------------------------------------------------------------------

    def _stop_reason(self) -> tuple[str, str | None]:
        reason = self._finish_reason
        # A call cut off by max_tokens must not be run: length wins over tool_use, as in
        # Anthropic's own API.
        if reason == "length":
            return "max_tokens", None
        if reason == "content_filter":
            return "refusal", None
        if self._tool_used:
            return "tool_use", None
        if self._matched_stop is not None:
            return "stop_sequence", self._matched_stop
        return "end_turn", None

    def _final_usage(self) -> dict[str, Any]:
        if self._usage is None:  # the upstream ignored include_usage: estimate
            return {"output_tokens": -(-self._out_ascii // 4) + self._out_other}
        return map_usage(self._usage)

    def _count(self, text: str) -> None:
        ascii_chars = len(text.encode("ascii", "ignore"))
        self._out_ascii += ascii_chars
        self._out_other += len(text) - ascii_chars


def input_json(text: str) -> str:
    """``text`` if it is a JSON object, else the object ``{"input": text}`` (as JSON)."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = None
    if isinstance(value, dict):
        return text
    return orjson.dumps({"input": text}).decode() if text.strip() else "{}"


def map_usage(usage: Mapping[str, Any]) -> dict[str, int]:
    """OpenAI usage -> Anthropic usage (cached prompt tokens are reported apart)."""
    prompt = _int(usage.get("prompt_tokens"))
    details = usage.get("prompt_tokens_details")
    cached = _int(details.get("cached_tokens")) if isinstance(details, Mapping) else 0
    if not cached:
        cached = _int(usage.get("prompt_cache_hit_tokens"))  # DeepSeek
    return {
        "input_tokens": max(prompt - cached, 0),
        "output_tokens": _int(usage.get("completion_tokens")),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": cached,
    }


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
