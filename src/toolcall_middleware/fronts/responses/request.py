"""Responses request -> Chat Completions request, validated before any upstream call.

``input`` items become chat messages in order, keeping one pending assistant message (text,
reasoning, calls) that is flushed before any user or tool message: everything the assistant
said in one turn, before the outputs of its calls, is one chat message. All ``instructions``,
``system`` and ``developer`` text becomes one leading system message (``core.system``). Every
call needs its output before the next user or assistant turn and every output a call, as in
the Anthropic front: a mismatch is a 400 naming the ``call_id``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.models import map_model
from ..core.system import MidSystem, one_leading_system
from .errors import ResponsesError, invalid
from .fields import translate_fields
from .reasoning import decode_reasoning
from .tools import ToolNames, flat_name, translate_tool_choice, translate_tools

logger = logging.getLogger("toolcall_middleware.responses")

IMAGE_NOTE = "[image attached in the next message]"
_DROPPED_ITEMS = frozenset(
    {
        "web_search_call",
        "local_shell_call",
        "image_generation_call",
        "compaction",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "code_interpreter_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "local_shell_call_output",
        "tool_search_call",
        "tool_search_output",
    }
)


@dataclass(frozen=True)
class RequestOptions:
    model_map: Mapping[str, str] = field(default_factory=dict)
    default_model: str | None = None
    upstream_fields: Mapping[str, Any] = field(default_factory=dict)
    mid_system: MidSystem = "merge"


@dataclass
class ResponsesRequest:
    body: dict[str, Any]  # the Chat Completions request
    model: str  # as the client asked, echoed in the response
    stream: bool
    #: Request fields the response object echoes (tools, tool_choice, instructions, ...).
    echo: dict[str, Any]
    names: ToolNames
    #: The client asked for ``reasoning.encrypted_content`` (Codex always does).
    encrypted_reasoning: bool


def translate_request(doc: Any, options: RequestOptions = RequestOptions()) -> ResponsesRequest:
    """Raises ``ResponsesError`` (400 naming the field) for anything malformed."""
    if not isinstance(doc, Mapping):
        raise invalid("request body must be a JSON object")
    model = doc.get("model")
    if not isinstance(model, str) or not model:
        raise invalid("field required (a non-empty string)", "model")
    for name in ("background", "conversation", "prompt"):
        if doc.get(name) not in (None, False):
            raise invalid("is not supported by this server", name)
    if doc.get("previous_response_id") is not None:
        raise ResponsesError(
            "previous_response_id is not supported by this stateless server; send the whole "
            "conversation in input",
            param="previous_response_id",
            code="previous_response_not_found",
        )
    stream = doc.get("stream", False)
    if stream is None:
        stream = False
    if not isinstance(stream, bool):
        raise invalid("must be a boolean", "stream")
    instructions = doc.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise invalid("must be a string", "instructions")

    tools = translate_tools(doc.get("tools"))
    choice = translate_tool_choice(doc.get("tool_choice"), tools)
    messages: list[dict[str, Any]] = []
    if instructions:
        messages.append({"role": "system", "content": instructions})
    messages += _Input(tools.names).messages(doc.get("input"))
    body: dict[str, Any] = {
        "model": map_model(model, options.model_map, options.default_model),
        "messages": one_leading_system(messages, options.mid_system),
    }
    if tools.chat:
        body["tools"] = tools.chat
        body.update(choice)
        parallel = doc.get("parallel_tool_calls")
        if parallel is not None:
            if not isinstance(parallel, bool):
                raise invalid("must be a boolean", "parallel_tool_calls")
            body["parallel_tool_calls"] = parallel
    body.update(translate_fields(doc))
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    body.update(options.upstream_fields)
    include = doc.get("include")
    if include is not None and not (
        isinstance(include, list) and all(isinstance(i, str) for i in include)
    ):
        raise invalid("must be a list of strings", "include")
    echo = {
        "instructions": instructions,
        "tools": doc.get("tools") or [],
        "tool_choice": doc.get("tool_choice") or "auto",
        "parallel_tool_calls": doc.get("parallel_tool_calls", True),
        "metadata": doc.get("metadata") if isinstance(doc.get("metadata"), Mapping) else {},
        "temperature": doc.get("temperature"),
        "top_p": doc.get("top_p"),
        "max_output_tokens": doc.get("max_output_tokens"),
        "store": doc.get("store", True),
        "reasoning": {"effort": (doc.get("reasoning") or {}).get("effort"), "summary": None},
        "text": doc.get("text")
        if isinstance(doc.get("text"), Mapping)
        else {"format": {"type": "text"}},
    }
    encrypted = "reasoning.encrypted_content" in (include or ())
    return ResponsesRequest(body, model, stream, echo, tools.names, encrypted)


class _Input:
    """The walk over ``input`` items, with the pending assistant message and the calls that
    still wait for their output."""

    def __init__(self, names: ToolNames) -> None:
        self.names = names
        self.out: list[dict[str, Any]] = []
        self.pending: dict[str, Any] | None = None
        self.pending_path = ""
        self.awaiting: dict[str, str] = {}  # call_id -> path of its call
        self.answered: set[str] = set()
        self.seen_calls: set[str] = set()
        self.images: list[dict[str, Any]] = []  # of tool outputs, for the user message after

    def messages(self, items: Any) -> list[dict[str, Any]]:
        if isinstance(items, str):
            return [{"role": "user", "content": items}]
        if not isinstance(items, list):
            raise invalid("field required (a string or a list of items)", "input")
        for i, item in enumerate(items):
            path = f"input[{i}]"
            if not isinstance(item, Mapping):
                raise invalid("must be an object", path)
            kind = item.get("type", "message" if "role" in item else None)
            if kind == "message":
                self._message(item, path)
            elif kind == "reasoning":
                self._reasoning(item, path)
            elif kind in ("function_call", "custom_tool_call"):
                self._call(item, path, kind == "custom_tool_call")
            elif kind in ("function_call_output", "custom_tool_call_output"):
                self._output(item, path)
            elif kind == "item_reference":
                raise invalid(
                    "item references need a stored response; this server stores none",
                    f"{path}.type",
                )
            elif isinstance(kind, str):
                logger.debug("dropping input item of type %s", kind)
            else:
                raise invalid("field required (a string)", f"{path}.type")
        self._turn_end()
        self._flush()
        self._check_answered("the end of input")
        return self.out

    # --- items ------------------------------------------------------------------------------

    def _message(self, item: Mapping[str, Any], path: str) -> None:
        role = item.get("role")
        content = item.get("content")
        if role in ("system", "developer"):
            self._turn_end()
            self._system(role, _texts(content, f"{path}.content", ("input_text", "text")))
        elif role == "user":
            self._turn_end()
            self._flush()
            self._check_answered(path)
            self.out.append({"role": "user", "content": _user_content(content, path)})
        elif role == "assistant":
            text = _texts(
                content, f"{path}.content", ("output_text", "refusal", "text", "input_text")
            )
            # Text after the turn's calls (before their outputs) joins the same message: a
            # second assistant message there would leave the calls unanswered.
            pending = self._assistant(path)
            pending["content"] = (pending.get("content") or "") + text
        else:
            raise invalid("must be 'user', 'assistant', 'system' or 'developer'", f"{path}.role")

    def _system(self, role: str, text: str) -> None:
        # Kept in place for one_leading_system, which merges it (or makes it a user message).
        self.out.append({"role": role, "content": text})

    def _reasoning(self, item: Mapping[str, Any], path: str) -> None:
        content, summary = (_parts(item, name, path) for name in ("content", "summary"))
        parts = [
            p.get("text")
            for p in content
            if isinstance(p, Mapping)
            and p.get("type") == "reasoning_text"
            and isinstance(p.get("text"), str)
        ]
        if not parts:
            parts = [
                p.get("text")
                for p in summary
                if isinstance(p, Mapping) and isinstance(p.get("text"), str)
            ]
        text = "\n".join(t for t in parts if t) or decode_reasoning(item.get("encrypted_content"))
        if not text:
            return
        pending = self._assistant(path)
        pending["reasoning_content"] = (pending.get("reasoning_content") or "") + text

    def _call(self, item: Mapping[str, Any], path: str, custom: bool) -> None:
        call_id = _str(item, "call_id", path)
        name = _str(item, "name", path)
        if call_id in self.seen_calls:
            raise invalid(f"duplicate call_id {call_id}", f"{path}.call_id")
        self.seen_calls.add(call_id)
        if custom:
            value = item.get("input")
            if not isinstance(value, str):
                raise invalid("field required (a string)", f"{path}.input")
            arguments = json.dumps({"input": value}, ensure_ascii=False)
        else:
            given = item.get("arguments")
            if not isinstance(given, str):
                raise invalid("field required (a string of JSON)", f"{path}.arguments")
            arguments = given or "{}"
        namespace = item.get("namespace")
        flat = flat_name(namespace if isinstance(namespace, str) else None, name)
        self._turn_end()
        pending = self._assistant(path)
        pending.setdefault("tool_calls", []).append(
            {"id": call_id, "type": "function", "function": {"name": flat, "arguments": arguments}}
        )

    def _output(self, item: Mapping[str, Any], path: str) -> None:
        call_id = _str(item, "call_id", path)
        self._flush()
        if call_id not in self.awaiting:
            raise invalid(
                f"no function call with call_id {call_id} precedes this output (each output "
                "must follow its call)",
                f"{path}.call_id",
            )
        del self.awaiting[call_id]
        self.out.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": self._output_text(item.get("output"), f"{path}.output"),
            }
        )

    def _output_text(self, output: Any, path: str) -> str:
        if isinstance(output, str):
            return output
        if not isinstance(output, list):
            raise invalid("must be a string or a list of content parts", path)
        texts: list[str] = []
        for j, part in enumerate(output):
            ppath = f"{path}[{j}]"
            kind = part.get("type") if isinstance(part, Mapping) else None
            if kind in ("input_text", "output_text", "text"):
                texts.append(_str(part, "text", ppath))
            elif kind == "input_image":
                self.images.append(_image(part, ppath))
                if IMAGE_NOTE not in texts:
                    texts.append(IMAGE_NOTE)
            else:
                raise invalid(f"unsupported content type {kind!r}", f"{ppath}.type")
        return "\n".join(texts)

    # --- turns ------------------------------------------------------------------------------

    def _assistant(self, path: str) -> dict[str, Any]:
        if self.pending is None:
            self._turn_end()
            self._check_answered(path)
            self.pending = {"role": "assistant", "content": None}
            self.pending_path = path
        return self.pending

    def _flush(self) -> None:
        pending, self.pending = self.pending, None
        if pending is None:
            return
        calls = pending.get("tool_calls")
        if calls:
            if not pending.get("content"):
                pending["content"] = None
            for call in calls:
                self.awaiting[call["id"]] = self.pending_path
        elif pending.get("content") is None:
            pending["content"] = ""
        self.out.append(pending)

    def _turn_end(self) -> None:
        """The run of tool outputs is over: their images follow in one user message (called
        before anything but a tool message is added)."""
        if self.images:
            images, self.images = self.images, []
            self.out.append({"role": "user", "content": images})

    def _check_answered(self, where: str) -> None:
        if self.awaiting:
            missing = ", ".join(self.awaiting)
            raise invalid(
                f"function calls without their output before {where}: {missing}. Each "
                "function_call needs a function_call_output with its call_id.",
                "input",
            )


def _parts(item: Mapping[str, Any], name: str, path: str) -> list[Any]:
    """An item's list of parts (``null`` or absent: none), or the 400 naming it."""
    value = item.get(name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise invalid("must be a list of parts", f"{path}.{name}")
    return value


def _str(obj: Mapping[str, Any], name: str, path: str) -> str:
    value = obj.get(name)
    if not isinstance(value, str) or not value:
        raise invalid("field required (a non-empty string)", f"{path}.{name}")
    return value


def _texts(content: Any, path: str, types: tuple[str, ...]) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise invalid("must be a string or a list of content parts", path)
    texts = []
    for j, part in enumerate(content):
        ppath = f"{path}[{j}]"
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind not in types:
            raise invalid(f"unsupported content type {kind!r} here", f"{ppath}.type")
        key = "refusal" if kind == "refusal" else "text"
        texts.append(_str(part, key, ppath) if part.get(key) != "" else "")
    return "\n".join(texts)


def _user_content(content: Any, path: str) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise invalid("must be a string or a list of content parts", f"{path}.content")
    parts: list[dict[str, Any]] = []
    for j, part in enumerate(content):
        ppath = f"{path}.content[{j}]"
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind in ("input_text", "text"):
            text = part.get("text")
            if text is not None and not isinstance(text, str):
                raise invalid("must be a string", f"{ppath}.text")
            parts.append({"type": "text", "text": text or ""})
        elif kind == "input_image":
            parts.append(_image(part, ppath))
        else:
            raise invalid(
                f"unsupported content type {kind!r} (an OpenAI-compatible upstream takes text "
                "and images)",
                f"{ppath}.type",
            )
    if len(parts) == 1 and parts[0]["type"] == "text":
        return str(parts[0]["text"])
    return parts


def _image(part: Mapping[str, Any], path: str) -> dict[str, Any]:
    url = part.get("image_url")
    if not isinstance(url, str) or not url:
        raise invalid(
            "field required (a URL or data: URL; file_id is not supported)", f"{path}.image_url"
        )
    image: dict[str, Any] = {"url": url}
    if isinstance(part.get("detail"), str):
        image["detail"] = part["detail"]
    return {"type": "image_url", "image_url": image}
