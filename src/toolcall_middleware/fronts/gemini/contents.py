"""Gemini ``contents`` -> Chat Completions ``messages``, validated on the way.

Consecutive contents of one side are merged first (``user`` and the legacy ``function`` role
are the user side, ``model`` the assistant). A model turn's text becomes the assistant's text,
its thought parts (or the reasoning our ``thoughtSignature`` carries) ``reasoning_content``, its
``functionCall`` parts ``tool_calls``. A user turn's ``functionResponse`` parts become tool
messages, in the order of the calls they answer, before the turn's own text and images:
Chat Completions wants tool messages right after the assistant's ``tool_calls``.

Pairing a response with its call never goes by name alone. gemini-cli rewrites every call id
to ``<name>__<id>`` (on the call it sends back and on the response alike): both sides are
decoded the same way, so the upstream sees the id it wrote itself. Without ids (a hand-built
history) the k-th response of a turn answers the k-th call of the model turn before it, the
names must agree, and both get a made-up ``call_<turn>_<k>``. Every call needs exactly one
response in the next turn, as Gemini itself requires.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import signature
from .errors import GeminiError, invalid_argument
from .fields import get, has

COUNT_MISMATCH = (
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn."
)
#: Part types with no Chat Completions form; they are dropped (what a model turn's media
#: becomes too: an assistant message is text and calls).
_DROPPED_PARTS = (
    "executableCode",
    "codeExecutionResult",
    "toolCall",
    "toolResponse",
    "videoMetadata",
)
_CONTENT_PARTS = (
    "text",
    "functionCall",
    "functionResponse",
    "inlineData",
    "fileData",
    *_DROPPED_PARTS,
)
ERROR_PREFIX = "Error: "


@dataclass(slots=True)
class _Call:
    upstream_id: str
    name: str
    client_id: str | None
    answered: bool = False


def upstream_call_id(call_id: str, name: Any) -> str:
    """The id the upstream wrote, from the one a client sends back: gemini-cli's
    ``<name>__<id>`` loses its prefix, any other id stays as it is."""
    if isinstance(name, str) and call_id.startswith(name + "__"):
        return call_id[len(name) + 2 :]
    return call_id


class ContentsTranslator:
    """One request's ``contents``. ``count_only`` (``countTokens``) skips the pairing rules:
    gemini-cli counts the new turn alone, function responses without their calls."""

    def __init__(self, *, signatures: bool = True, count_only: bool = False) -> None:
        self.signatures = signatures
        self.count_only = count_only
        self.messages: list[dict[str, Any]] = []
        self._pending: list[_Call] = []
        self._pending_path = ""

    def translate(self, contents: Any) -> list[dict[str, Any]]:
        if not isinstance(contents, list) or not contents:
            raise invalid_argument("contents: must be a non-empty list of Content objects")
        for turn, (side, path, parts) in enumerate(_merged(contents)):
            if side == "model":
                self._check_answered()
                self._model(turn, path, parts)
            else:
                self._user(path, parts)
        self._check_answered()
        return self.messages

    # --- model turns --------------------------------------------------------------------

    def _model(self, turn: int, path: str, parts: list[tuple[str, Mapping[str, Any]]]) -> None:
        texts: list[str] = []
        thoughts: list[str] = []
        carried: str | None = None
        calls: list[dict[str, Any]] = []
        pending: list[_Call] = []
        for ppath, part in parts:
            kind = _kind(part, ppath)
            if self.signatures and carried is None:
                carried = signature.decode(get(part, "thoughtSignature"))
            if kind == "text":
                (thoughts if part.get("thought") is True else texts).append(
                    _string(part, "text", ppath)
                )
            elif kind == "functionCall":
                call = _call(get(part, "functionCall"), f"{ppath}.functionCall", turn, len(calls))
                if any(c.upstream_id == call.upstream_id for c in pending):
                    raise invalid_argument(
                        f"{ppath}.functionCall.id: {call.client_id!r} is used by another call "
                        "of this turn"
                    )
                pending.append(call)
                calls.append(call_message(call, get(part, "functionCall"), ppath))
            elif kind == "functionResponse":
                raise invalid_argument(
                    f"{ppath}.functionResponse: function responses belong in user turns"
                )
        message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
        if calls:
            message["tool_calls"] = calls
        elif message["content"] is None:
            message["content"] = ""
        reasoning = "".join(thoughts) or carried
        if reasoning:
            message["reasoning_content"] = reasoning
        self.messages.append(message)
        self._pending, self._pending_path = pending, path

    # --- user turns ---------------------------------------------------------------------

    def _user(self, path: str, parts: list[tuple[str, Mapping[str, Any]]]) -> None:
        answers: list[tuple[int, dict[str, Any]]] = []
        images: list[dict[str, Any]] = []
        content: list[dict[str, Any]] = []
        for ppath, part in parts:
            kind = _kind(part, ppath)
            if kind == "text":
                if part.get("thought") is not True:
                    content.append({"type": "text", "text": _string(part, "text", ppath)})
            elif kind == "functionResponse":
                answers.append(self._answer(part, ppath, len(answers), images))
            elif kind in ("inlineData", "fileData"):
                content.append(self._media(part, kind, ppath))
            elif kind == "functionCall":
                raise invalid_argument(
                    f"{ppath}.functionCall: function calls belong in model turns"
                )
        if not self.count_only and len(answers) != len(self._pending):
            raise invalid_argument(f"{self._pending_path}: {COUNT_MISMATCH}")
        self._pending = []
        self.messages += [message for _, message in sorted(answers, key=lambda a: a[0])]
        content = images + content
        if content or not answers:
            if all(p["type"] == "text" for p in content):
                self.messages.append(
                    {"role": "user", "content": "\n".join(p["text"] for p in content)}
                )
            else:
                self.messages.append({"role": "user", "content": content})

    def _answer(
        self, part: Mapping[str, Any], path: str, k: int, images: list[dict[str, Any]]
    ) -> tuple[int, dict[str, Any]]:
        """The tool message of a ``functionResponse``, and the position of its call."""
        response = get(part, "functionResponse")
        rpath = f"{path}.functionResponse"
        if not isinstance(response, Mapping):
            raise invalid_argument(f"{rpath}: must be an object")
        name = _string(response, "name", rpath)
        position, call_id = self._pair(response, name, rpath, k)
        payload = get(response, "response")
        if payload is None:
            payload = {}
        if not isinstance(payload, Mapping):
            raise invalid_argument(f"{rpath}.response: must be an object")
        texts = [tool_text(payload)]
        inner = get(response, "parts")
        if inner is not None:
            if not isinstance(inner, list):
                raise invalid_argument(f"{rpath}.parts: must be a list")
            for j, sub in enumerate(inner):
                spath = f"{rpath}.parts[{j}]"
                kind = _kind(sub, spath)
                if kind == "text":
                    texts.append(_string(sub, "text", spath))
                elif kind in ("inlineData", "fileData"):
                    images.append(self._media(sub, kind, spath))
        message = {"role": "tool", "tool_call_id": call_id, "content": "\n".join(texts)}
        return position, message

    def _pair(self, response: Mapping[str, Any], name: str, path: str, k: int) -> tuple[int, str]:
        client_id = get(response, "id")
        if client_id is not None and not isinstance(client_id, str):
            raise invalid_argument(f"{path}.id: must be a string")
        if self.count_only:
            return k, upstream_call_id(client_id, name) if client_id else f"call_{k}"
        if not self._pending:
            raise invalid_argument(
                f"{path}: a function response must follow a model turn with function calls"
            )
        if client_id:
            wanted = upstream_call_id(client_id, name)
            found = [
                (position, call)
                for position, call in enumerate(self._pending)
                if call.client_id == client_id or call.upstream_id == wanted
            ]
            if not found:
                raise invalid_argument(
                    f"{path}.id: no function call with id {client_id!r} in the model turn "
                    f"before it ({self._pending_path})"
                )
            position, call = found[0]
        else:
            if k >= len(self._pending):
                raise invalid_argument(f"{path}: {COUNT_MISMATCH}")
            position, call = k, self._pending[k]
        if call.answered:
            raise invalid_argument(f"{path}: the call {call.upstream_id!r} is answered twice")
        if call.name != name:
            raise invalid_argument(
                f"{path}.name: {name!r} does not match the function call it answers ({call.name!r})"
            )
        call.answered = True
        return position, call.upstream_id

    def _media(self, part: Mapping[str, Any], kind: str, path: str) -> dict[str, Any]:
        data = get(part, kind)
        mpath = f"{path}.{kind}"
        if not isinstance(data, Mapping):
            raise invalid_argument(f"{mpath}: must be an object")
        mime = _string(data, "mimeType", mpath)
        if kind == "inlineData":
            url = f"data:{mime};base64,{_string(data, 'data', mpath)}"
        else:
            url = _string(data, "fileUri", mpath)
        image = mime.lower().startswith("image/")
        remote = kind == "inlineData" or url.startswith(("http://", "https://"))
        if not self.count_only and not (image and remote):
            what = "images" if kind == "inlineData" else "http(s) image URLs"
            raise invalid_argument(
                f"{mpath}: {mime} cannot be sent to an OpenAI-compatible upstream ({what} only)"
            )
        return {"type": "image_url", "image_url": {"url": url}}

    def _check_answered(self) -> None:
        if self._pending and not self.count_only:
            raise invalid_argument(f"{self._pending_path}: {COUNT_MISMATCH}")


def call_message(call: _Call, fields: Mapping[str, Any], path: str) -> dict[str, Any]:
    args = get(fields, "args")
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise invalid_argument(f"{path}.functionCall.args: must be an object")
    # json.dumps spacing is what chat templates render and what models write themselves.
    arguments = json.dumps(args, ensure_ascii=False)
    return {
        "id": call.upstream_id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def tool_text(payload: Mapping[str, Any]) -> str:
    """A function response's ``response`` object as tool message text: gemini-cli's
    ``{"output": text}`` is the text, ``{"error": ...}`` an error, anything else JSON."""
    if len(payload) == 1:
        value = next(iter(payload.values()))
        if "output" in payload and isinstance(value, str):
            return value
        if "error" in payload:
            return ERROR_PREFIX + (value if isinstance(value, str) else json.dumps(value))
    return json.dumps(payload, ensure_ascii=False)


# --- helpers --------------------------------------------------------------------------------


def _merged(contents: list[Any]) -> list[tuple[str, str, list[tuple[str, Mapping[str, Any]]]]]:
    """Consecutive contents of one side as one turn: (side, path, [(part path, part)])."""
    turns: list[tuple[str, str, list[tuple[str, Mapping[str, Any]]]]] = []
    for i, content in enumerate(contents):
        path = f"contents[{i}]"
        if not isinstance(content, Mapping):
            raise invalid_argument(f"{path}: must be a Content object")
        role = content.get("role")
        if role in (None, "", "user", "function"):
            side = "user"
        elif role == "model":
            side = "model"
        else:
            raise invalid_argument(f"{path}.role: must be 'user' or 'model', not {role!r}")
        parts = content.get("parts")
        if parts is None:
            parts = []
        if not isinstance(parts, list):
            raise invalid_argument(f"{path}.parts: must be a list of Part objects")
        numbered = [(f"{path}.parts[{j}]", part) for j, part in enumerate(parts)]
        if turns and turns[-1][0] == side:
            turns[-1][2].extend(numbered)
        else:
            turns.append((side, path, numbered))
    return turns


def _kind(part: Any, path: str) -> str | None:
    """Which content a part holds; None for a part of metadata only (a lone signature)."""
    if not isinstance(part, Mapping):
        raise invalid_argument(f"{path}: must be a Part object")
    for kind in _CONTENT_PARTS:
        if has(part, kind):
            return None if kind in _DROPPED_PARTS else kind
    unknown = sorted(k for k in part if k not in _METADATA)
    if unknown:
        raise invalid_argument(f"{path}: unsupported part type {unknown[0]!r}")
    return None


_METADATA = frozenset(
    {
        "thought",
        "thoughtSignature",
        "thought_signature",
        "partMetadata",
        "part_metadata",
        "mediaResolution",
        "media_resolution",
    }
)


def _call(fields: Any, path: str, turn: int, k: int) -> _Call:
    if not isinstance(fields, Mapping):
        raise invalid_argument(f"{path}: must be an object")
    name = _string(fields, "name", path)
    client_id = get(fields, "id")
    if client_id is not None and not isinstance(client_id, str):
        raise invalid_argument(f"{path}.id: must be a string")
    if client_id:
        return _Call(upstream_call_id(client_id, name), name, client_id)
    return _Call(f"call_{turn}_{k}", name, None)


def _string(doc: Mapping[str, Any], name: str, path: str) -> str:
    value = get(doc, name)
    if not isinstance(value, str):
        raise invalid_argument(f"{path}.{name}: field required (a string)")
    return value


__all__ = ["COUNT_MISMATCH", "ContentsTranslator", "GeminiError", "tool_text", "upstream_call_id"]
