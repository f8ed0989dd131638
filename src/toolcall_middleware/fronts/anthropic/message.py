"""Non-streaming: an OpenAI ``chat.completion`` -> an Anthropic ``message`` object.

The completion is read by the same ``StreamTranslator`` as a stream would be, and the events are
assembled the way an Anthropic SDK assembles a stream, so both paths follow the same rules
(block order, ids, thinking signatures, stop_reason, usage) by construction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...calls import arguments_object
from .errors import AnthropicError
from .stream import Event, StreamTranslator


def translate_completion(
    completion: Mapping[str, Any],
    model: str,
    *,
    input_tokens: int = 0,
    stop_sequences: tuple[str, ...] = (),
) -> dict[str, Any]:
    translator = StreamTranslator(model, input_tokens=input_tokens, stop_sequences=stop_sequences)
    events = translator.start() + translator.feed_completion(completion) + translator.finish()
    return assemble(events)


def assemble(events: Iterable[Event]) -> dict[str, Any]:
    """Build the final message from a translated event sequence."""
    message = MessageAssembler()
    message.add(events)
    return message.result()


class MessageAssembler:
    """The final message, built from the translated events as they come, the way an Anthropic
    SDK builds it from a stream. Each block's text is kept in pieces and joined once, when the
    block stops: a long answer has thousands of deltas, and neither they nor a growing copy of
    the text are held."""

    def __init__(self) -> None:
        self._message: dict[str, Any] = {}
        self._content: list[dict[str, Any]] = []
        self._pieces: dict[int, list[str]] = {}  # the text, thinking or input of open blocks
        self._error: AnthropicError | None = None

    def add(self, events: Iterable[Event]) -> None:
        for kind, data in events:
            if kind == "content_block_delta":
                delta = data["delta"]
                dtype = delta["type"]
                if dtype == "signature_delta":
                    self._content[data["index"]]["signature"] = delta["signature"]
                else:
                    self._pieces[data["index"]].append(delta[_DELTA_TEXT[dtype]])
            elif kind == "content_block_start":
                self._pieces[len(self._content)] = []
                self._content.append(dict(data["content_block"]))
            elif kind == "content_block_stop":
                index = data["index"]
                block, text = self._content[index], "".join(self._pieces.pop(index))
                if block["type"] == "tool_use":
                    if text:
                        block["input"] = parse_input(text)
                else:
                    block["text" if block["type"] == "text" else "thinking"] += text
            elif kind == "message_start":
                self._message = dict(data["message"])
                self._message["usage"] = dict(self._message["usage"])
            elif kind == "message_delta":
                self._message.update(data["delta"])
                self._message["usage"].update(data["usage"])
            elif kind == "error":
                error = data["error"]
                self._error = AnthropicError(error["message"], error["type"])

    def result(self) -> dict[str, Any]:
        """The message; raises the ``AnthropicError`` an ``error`` event carried."""
        if self._error is not None:
            raise self._error
        self._message["content"] = self._content
        return self._message


#: Where each kind of delta carries its piece.
_DELTA_TEXT = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "input_json_delta": "partial_json",
}


def parse_input(text: str) -> dict[str, Any]:
    """Tool arguments as the ``input`` object; text that is not a JSON object is wrapped as
    ``{"input": text}`` so the tool can answer the model with an error instead of the client
    failing on the whole response (``calls.arguments_object``, the one policy)."""
    return arguments_object(text)[0]
