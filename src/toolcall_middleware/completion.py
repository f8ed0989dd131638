"""Accumulating a stream of ``chat.completion.chunk`` objects into one ``chat.completion``.

The inverse of streaming, done the way OpenAI clients do it: text fields concatenated, tool
calls accumulated by ``index`` with the first entry's ``id``/``name``. Used by ``toolcall
replay --summary`` and wherever the complete response is wanted after a stream.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import lenient_json
from .sse import SSEDecoder
from .text_fields import TEXT_FIELDS


class CompletionAccumulator:
    def __init__(self) -> None:
        self._meta: dict[str, Any] = {}
        self._choices: dict[int, dict[str, Any]] = {}
        self.usage: Any = None
        self.errors: list[Any] = []

    def add(self, chunk: dict[str, Any]) -> None:
        if "error" in chunk:
            self.errors.append(chunk["error"])
            return
        for key in ("id", "created", "model", "system_fingerprint"):
            if key in chunk and key not in self._meta:
                self._meta[key] = chunk[key]
        if chunk.get("usage") is not None:
            self.usage = chunk["usage"]
        choices = chunk.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if isinstance(choice, dict):  # whatever else an upstream sends is skipped
                self._add_choice(choice)

    def _add_choice(self, choice: dict[str, Any]) -> None:
        index = choice.get("index", 0)
        state = self._choices.setdefault(
            index if type(index) is int else 0,
            {"message": {"role": "assistant"}, "calls": {}, "finish_reason": None},
        )
        message = state["message"]
        delta = choice.get("delta")
        delta = delta if isinstance(delta, dict) else {}
        for field in TEXT_FIELDS:
            if isinstance(delta.get(field), str):
                message[field] = message.get(field, "") + delta[field]
        entries = delta.get("tool_calls")
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, dict):
                continue
            key = entry.get("index")
            call = state["calls"].setdefault(
                key if type(key) is int else None,
                {"id": None, "type": "function", "function": {"name": "", "arguments": ""}},
            )
            if isinstance(entry.get("id"), str) and entry["id"]:
                call["id"] = entry["id"]
            function = entry.get("function")
            function = function if isinstance(function, dict) else {}
            for part in ("name", "arguments"):
                if isinstance(function.get(part), str):
                    call["function"][part] += function[part]
        if choice.get("finish_reason") is not None:
            state["finish_reason"] = choice["finish_reason"]

    def completion(self) -> dict[str, Any]:
        choices = []
        for index in sorted(self._choices):
            state = self._choices[index]
            message = dict(state["message"])
            message.setdefault("content", None)
            if state["calls"]:
                message["tool_calls"] = [state["calls"][i] for i in sorted(state["calls"])]
            choices.append(
                {"index": index, "message": message, "finish_reason": state["finish_reason"]}
            )
        out: dict[str, Any] = {**self._meta, "object": "chat.completion", "choices": choices}
        if self.usage is not None:
            out["usage"] = self.usage
        if self.errors:
            out["errors"] = self.errors
        return out


def chunks_from_sse(body: bytes) -> Iterable[dict[str, Any]]:
    """The JSON objects of an SSE body (``[DONE]``, comments and non-JSON events skipped)."""
    decoder = SSEDecoder()
    for event in [*decoder.feed(body), *decoder.close()]:
        chunk = chunk_of(event.data)
        if chunk is not None:
            yield chunk


def chunk_of(data: bytes | None) -> dict[str, Any] | None:
    """The JSON object an event's data holds, read as clients read it; else ``None``."""
    if data is None or data.lstrip(b" \t\r\n")[:1] != b"{":
        return None
    try:
        value = lenient_json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def completion_from_sse(body: bytes) -> dict[str, Any]:
    accumulator = CompletionAccumulator()
    for chunk in chunks_from_sse(body):
        accumulator.add(chunk)
    return accumulator.completion()
