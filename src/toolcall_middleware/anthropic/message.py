"""Non-streaming: an OpenAI ``chat.completion`` -> an Anthropic ``message`` object.

The completion is fed through the same ``StreamTranslator`` as one big chunk and the events are
assembled the way an Anthropic SDK assembles a stream, so both paths follow the same rules
(block order, ids, thinking signatures, stop_reason, usage) by construction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from .errors import AnthropicError
from .stream import Event, StreamTranslator, input_json


def translate_completion(
    completion: Mapping[str, Any],
    model: str,
    *,
    input_tokens: int = 0,
    stop_sequences: tuple[str, ...] = (),
) -> dict[str, Any]:
    translator = StreamTranslator(model, input_tokens=input_tokens, stop_sequences=stop_sequences)
    chunk = completion_chunk(completion)
    return assemble([*translator.start(), *translator.feed(chunk), *translator.finish()])


def completion_chunk(completion: Mapping[str, Any]) -> dict[str, Any]:
    """The whole completion as one stream chunk (its message as the delta)."""
    if "error" in completion and not completion.get("choices"):
        return dict(completion)  # the translator reports it
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise AnthropicError("upstream response has no choices", "api_error")
    choice = choices[0]
    message = choice.get("message")
    delta = dict(message) if isinstance(message, Mapping) else {}
    calls = delta.get("tool_calls")
    if isinstance(calls, list):  # whole calls carry no index: give them their position
        delta["tool_calls"] = [
            {**call, "index": i} for i, call in enumerate(calls) if isinstance(call, Mapping)
        ]
    return {
        "choices": [
            {
                "index": 0,
                "delta": delta,
                "finish_reason": choice.get("finish_reason") or "stop",
                "stop_reason": choice.get("stop_reason"),
            }
        ],
        "usage": completion.get("usage"),
    }


def assemble(events: Iterable[Event]) -> dict[str, Any]:
    """Build the final message from a translated event sequence."""
    message: dict[str, Any] = {}
    content: list[dict[str, Any]] = []
    json_text: dict[int, list[str]] = {}
    for kind, data in events:
        if kind == "message_start":
            message = dict(data["message"])
            message["usage"] = dict(message["usage"])
        elif kind == "content_block_start":
            content.append(dict(data["content_block"]))
        elif kind == "content_block_delta":
            block, delta = content[data["index"]], data["delta"]
            dtype = delta["type"]
            if dtype == "text_delta":
                block["text"] += delta["text"]
            elif dtype == "thinking_delta":
                block["thinking"] += delta["thinking"]
            elif dtype == "signature_delta":
                block["signature"] = delta["signature"]
            elif dtype == "input_json_delta":
                json_text.setdefault(data["index"], []).append(delta["partial_json"])
        elif kind == "content_block_stop":
            index = data["index"]
            if index in json_text:
                content[index]["input"] = parse_input("".join(json_text.pop(index)))
        elif kind == "message_delta":
            message.update(data["delta"])
            message["usage"].update(data["usage"])
        elif kind == "error":
            error = data["error"]
            raise AnthropicError(error["message"], error["type"])
    message["content"] = content
    return message


def parse_input(text: str) -> dict[str, Any]:
    """Tool arguments as the ``input`` object; text that is not a JSON object is wrapped as
    ``{"input": text}`` so the tool can answer the model with an error instead of the client
    failing on the whole response."""
    value = orjson.loads(input_json(text))
    assert isinstance(value, dict)
    return value
