"""Anthropic ``system`` and ``messages`` (their content blocks) -> Chat Completions messages.

Part of ``translate_request`` (``request.py``): every block is checked, and a bad one costs the
client a 400 ``invalid_request_error`` naming it (``messages.2.content.0.tool_use_id: ...``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from ..core import ids
from . import thinking
from .errors import invalid_request, str_field

#: What our own thinking blocks become when a client sends them back.
ThinkingHistory = Literal["reasoning_content", "drop"]

# A tool_result that carried images: the images follow in a user message (tool messages are
# text-only on most upstreams), and the tool message says so.
IMAGE_NOTE = "[image attached in the next message]"
ERROR_PREFIX = "Error: "  # OpenAI tool messages have no is_error flag
_USER_PARTS = frozenset({"text", "image", "document", "search_result"})


# --- system -------------------------------------------------------------------------------


def system_messages(system: Any) -> list[dict[str, Any]]:
    if system is None:
        return []
    text = _text_only(system, "system")
    return [{"role": "system", "content": text}] if text else []


def _text_only(content: Any, path: str) -> str:
    """A string, or a list of text blocks joined by newlines (what vLLM does with parts)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise invalid_request(f"{path}: must be a string or a list of text blocks")
    texts = []
    for j, block in enumerate(content):
        bpath = f"{path}.{j}"
        if _block_type(block, bpath) != "text":
            raise invalid_request(f"{bpath}.type: only text blocks are allowed here")
        texts.append(str_field(block, "text", bpath))
    return "\n".join(texts)


# --- messages -----------------------------------------------------------------------------


def chat_messages(messages: Any, thinking_history: ThinkingHistory) -> list[dict[str, Any]]:
    if not isinstance(messages, list) or not messages:
        raise invalid_request("messages: field required (a non-empty list)")
    out: list[dict[str, Any]] = []
    seen_ids: set[str] = set()
    # tool_use ids of the previous assistant message, each awaiting its tool_result.
    awaiting: dict[str, str] = {}
    awaiting_path = ""
    for i, message in enumerate(messages):
        path = f"messages.{i}"
        if not isinstance(message, Mapping):
            raise invalid_request(f"{path}: must be an object")
        role = message.get("role")
        if "content" not in message:
            raise invalid_request(f"{path}.content: field required")
        content = message["content"]
        if role == "user":
            answered = _user(content, path, awaiting, out)
            missing = [tid for tid in awaiting if tid not in answered]
        elif role == "assistant":
            missing = list(awaiting)
            if not missing:
                awaiting = _assistant(content, path, thinking_history, seen_ids, out)
                awaiting_path = path
                continue
        elif role == "system":
            missing = list(awaiting)
            if not missing:
                out.append({"role": "system", "content": _text_only(content, f"{path}.content")})
                continue
        else:
            raise invalid_request(f"{path}.role: must be 'user', 'assistant' or 'system'")
        if missing:
            raise _missing_results(awaiting_path, missing)
        awaiting = {}
    if awaiting:
        raise _missing_results(awaiting_path, list(awaiting))
    return out


def _missing_results(path: str, missing: list[str]) -> Exception:
    return invalid_request(
        f"{path}: tool_use ids were found without tool_result blocks immediately after: "
        f"{', '.join(missing)}. Each tool_use block must have a corresponding tool_result "
        "block in the next message."
    )


def _blocks(content: Any, path: str) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise invalid_request(f"{path}.content: must be a string or a list of content blocks")
    for j, block in enumerate(content):
        _block_type(block, f"{path}.content.{j}")
    return content


def _user(
    content: Any, path: str, awaiting: Mapping[str, str], out: list[dict[str, Any]]
) -> set[str]:
    """Append the tool messages, then the user message; return the tool_use ids answered."""
    answered: set[str] = set()
    parts: list[dict[str, Any]] = []
    result_images: list[dict[str, Any]] = []
    for j, block in enumerate(_blocks(content, path)):
        bpath = f"{path}.content.{j}"
        kind = block["type"]
        if kind == "tool_result":
            tool_use_id = str_field(block, "tool_use_id", bpath)
            if tool_use_id not in awaiting:
                raise invalid_request(
                    f"{bpath}: unexpected tool_use_id found in tool_result blocks: "
                    f"{tool_use_id}. Each tool_result block must have a corresponding tool_use "
                    "block in the previous message."
                )
            if tool_use_id in answered:
                raise invalid_request(f"{bpath}: duplicate tool_result for {tool_use_id}")
            answered.add(tool_use_id)
            # OpenAI wants tool messages right after the assistant's tool_calls, so they go
            # before the user's own text of this message.
            out.append(_tool_message(block, awaiting[tool_use_id], bpath, result_images))
        elif isinstance(kind, str) and kind in _USER_PARTS:
            parts.append(_user_part(block, bpath))
        else:
            raise invalid_request(f"{bpath}.type: {kind!r} blocks are not allowed in user messages")
    parts = result_images + parts
    if parts or not answered:
        only_text = len(parts) == 1 and parts[0]["type"] == "text"
        user_content: str | list[dict[str, Any]] = parts[0]["text"] if only_text else parts
        out.append({"role": "user", "content": user_content or ""})
    return answered


def _tool_message(
    block: Mapping[str, Any], upstream_id: str, path: str, images: list[dict[str, Any]]
) -> dict[str, Any]:
    content = block.get("content", "")
    texts: list[str] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for k, inner in enumerate(content):
            ipath = f"{path}.content.{k}"
            kind = _block_type(inner, ipath)
            if kind == "image":
                images.append(_image(inner, ipath))
                if IMAGE_NOTE not in texts:
                    texts.append(IMAGE_NOTE)
            elif isinstance(kind, str) and kind in _USER_PARTS:
                texts.append(_user_part(inner, ipath)["text"])
            else:
                raise invalid_request(f"{ipath}.type: {kind!r} is not allowed in a tool_result")
    elif content is not None:
        raise invalid_request(f"{path}.content: must be a string or a list of content blocks")
    is_error = block.get("is_error", False)
    if not isinstance(is_error, bool):
        raise invalid_request(f"{path}.is_error: must be a boolean")
    text = "\n".join(texts)
    if is_error:
        text = ERROR_PREFIX + text
    return {"role": "tool", "tool_call_id": upstream_id, "content": text}


def _user_part(block: Mapping[str, Any], path: str) -> dict[str, Any]:
    """A text, image, document or search_result block as a Chat Completions content part."""
    kind = block["type"]
    if kind == "text":
        return {"type": "text", "text": str_field(block, "text", path)}
    if kind == "image":
        return _image(block, path)
    if kind == "search_result":
        inner = _text_only(block.get("content"), f"{path}.content")
        head = [str(block[k]) for k in ("title", "source") if isinstance(block.get(k), str)]
        return {"type": "text", "text": "\n".join([*head, inner])}
    # document: plain text and text-block content have a Chat Completions form, PDFs do not
    source = block.get("source")
    spath = f"{path}.source"
    if isinstance(source, Mapping) and source.get("type") == "text":
        return {"type": "text", "text": str_field(source, "data", spath)}
    if isinstance(source, Mapping) and source.get("type") == "content":
        return {"type": "text", "text": _text_only(source.get("content"), f"{spath}.content")}
    raise invalid_request(
        f"{spath}: only text documents can be sent to an OpenAI-compatible upstream"
    )


def _image(block: Mapping[str, Any], path: str) -> dict[str, Any]:
    source = block.get("source")
    spath = f"{path}.source"
    if not isinstance(source, Mapping):
        raise invalid_request(f"{spath}: field required")
    kind = source.get("type")
    if kind == "base64":
        media_type = str_field(source, "media_type", spath)
        data = str_field(source, "data", spath)
        url = f"data:{media_type};base64,{data}"
    elif kind == "url":
        url = str_field(source, "url", spath)
    else:
        raise invalid_request(f"{spath}.type: must be 'base64' or 'url'")
    return {"type": "image_url", "image_url": {"url": url}}


def _assistant(
    content: Any,
    path: str,
    thinking_history: ThinkingHistory,
    seen_ids: set[str],
    out: list[dict[str, Any]],
) -> dict[str, str]:
    """Append the assistant message; return its tool_use ids (client id -> upstream id)."""
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[dict[str, Any]] = []
    tool_ids: dict[str, str] = {}
    for j, block in enumerate(_blocks(content, path)):
        bpath = f"{path}.content.{j}"
        kind = block["type"]
        if kind == "text":
            texts.append(str_field(block, "text", bpath))
        elif kind == "thinking":
            text = str_field(block, "thinking", bpath)
            if thinking.is_ours(block.get("signature")) and thinking_history != "drop":
                reasoning.append(text)
        elif kind == "redacted_thinking":
            continue  # encrypted by Anthropic: nothing another model can read
        elif kind == "tool_use":
            client_id = str_field(block, "id", bpath)
            if client_id in seen_ids:
                raise invalid_request(f"{bpath}.id: tool_use ids must be unique: {client_id}")
            seen_ids.add(client_id)
            name = str_field(block, "name", bpath)
            arguments = block.get("input")
            if not isinstance(arguments, Mapping):
                raise invalid_request(f"{bpath}.input: field required (an object)")
            try:
                upstream_id = ids.decode(client_id)
            except ValueError as exc:
                raise invalid_request(f"{bpath}.id: {exc}") from None
            tool_ids[client_id] = upstream_id
            # json.dumps spacing is what chat templates render and what the models themselves
            # write; non-ASCII stays as is.
            arguments_text = json.dumps(arguments, ensure_ascii=False)
            calls.append(
                {
                    "id": upstream_id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments_text},
                }
            )
        else:
            raise invalid_request(
                f"{bpath}.type: {kind!r} blocks are not allowed in assistant messages"
            )
    message: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) if texts else None}
    if calls:
        message["tool_calls"] = calls
    elif message["content"] is None:
        message["content"] = ""
    if reasoning:
        message["reasoning_content"] = "\n".join(reasoning)
    out.append(message)
    return tool_ids


def _block_type(block: Any, path: str) -> str:
    if not isinstance(block, Mapping):
        raise invalid_request(f"{path}: content blocks must be objects")
    kind = block.get("type")
    if not isinstance(kind, str):
        raise invalid_request(f"{path}.type: field required")
    return kind
