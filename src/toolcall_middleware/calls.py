"""Turning call events into OpenAI ``tool_calls`` delta entries, exactly as clients need them.

Every tool call a client sees leaves through here: ``index`` dense from 0 in order of
appearance, ``id``/``type``/``name`` on the first entry only (with ``arguments: ""``), argument
fragments after, and ``"{}"`` for a call that ended without any arguments.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Callable
from typing import Any

Entry = dict[str, Any]
IdFactory = Callable[[], str]

_ALNUM = string.ascii_letters + string.digits


def openai_call_id() -> str:
    return "call_" + secrets.token_hex(12)


def mistral_call_id() -> str:
    """Mistral rejects ids that are not exactly nine alphanumeric characters on the next turn."""
    return "".join(secrets.choice(_ALNUM) for _ in range(9))


def call_ids_for(parser: object) -> IdFactory:
    """Ids in the style a parser asks for (its ``ID_STYLE``), looked up as each id is made:
    a sniffing parser only knows its format once the markup has shown it."""

    def new_id() -> str:
        if getattr(parser, "ID_STYLE", None) == "mistral9":
            return mistral_call_id()
        return openai_call_id()

    return new_id


class ToolCallAssembler:
    """Numbers the calls of one choice and shapes their entries; tracks the current call."""

    def __init__(self, new_id: IdFactory = openai_call_id) -> None:
        self._new_id = new_id
        self.count = 0
        self._current = -1
        self._has_arguments = False

    def start(self, name: str, call_id: str | None) -> Entry:
        self._current = index = self.count
        self.count += 1
        self._has_arguments = False
        return {
            "index": index,
            "id": call_id or self._new_id(),
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }

    def arguments(self, fragment: str) -> Entry:
        self._has_arguments = True
        return {"index": self._current, "function": {"arguments": fragment}}

    def end(self) -> Entry | None:
        """Close the current call; an empty call still needs valid JSON arguments."""
        if self._current < 0:
            return None
        entry = None if self._has_arguments else self.arguments("{}")
        self._current = -1
        return entry
