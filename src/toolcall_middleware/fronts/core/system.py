"""One leading system message, whatever the client sent.

Many chat templates (Qwen3 and others on vLLM) reject a request whose system message is not
first and only ("System message must be at the beginning"). Clients send several: Codex its
``instructions`` plus ``developer`` items (also after user turns), Claude Code 2.1 a
``{"role": "system"}`` message after the first user turn. Every front builds its chat messages
with system (or developer) text wherever it came, then calls ``one_leading_system``.
"""

from __future__ import annotations

from typing import Any, Literal

MidSystem = Literal["merge", "user"]
MID_SYSTEM: tuple[MidSystem, ...] = ("merge", "user")
SYSTEM_ROLES = frozenset({"system", "developer"})


def one_leading_system(
    messages: list[dict[str, Any]], mid_system: MidSystem = "merge"
) -> list[dict[str, Any]]:
    """``messages`` with all system/developer text in one leading system message (in order,
    separated by blank lines). With ``mid_system="user"``, the ones after the first user
    message become user messages instead, their text starting with ``[system]`` or
    ``[developer]``. Empty system text is dropped."""
    system: list[str] = []
    rest: list[dict[str, Any]] = []
    seen_user = False
    for message in messages:
        role = message.get("role")
        if not isinstance(role, str) or role not in SYSTEM_ROLES:
            seen_user = seen_user or role == "user"
            rest.append(message)
            continue
        text = _text(message.get("content"))
        if not text:
            continue
        if seen_user and mid_system == "user":
            rest.append({"role": "user", "content": f"[{role}]\n{text}"})
        else:
            system.append(text)
    if not system:
        return rest
    return [{"role": "system", "content": "\n\n".join(system)}, *rest]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""
