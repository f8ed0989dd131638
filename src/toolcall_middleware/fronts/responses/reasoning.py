"""``encrypted_content``: the model's reasoning, carried through a client that keeps no text.

A client that asks for ``include: ["reasoning.encrypted_content"]`` (Codex CLI, stateless)
sends reasoning items back with only that field. We put the reasoning's own text there,
``"tcm1." + base64url(text)``, and read back only values with our prefix (another server's
are ignored), as Gemini's ``thoughtSignature`` does (``gemini/signature.py``).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

#: Prefix of the ``encrypted_content`` we put on reasoning items (base64url of the text).
ENCRYPTED_PREFIX = "tcm1."


def encode_reasoning(text: str) -> str:
    return ENCRYPTED_PREFIX + base64.urlsafe_b64encode(text.encode()).decode()


def decode_reasoning(value: Any) -> str | None:
    """Our own ``encrypted_content``, decoded; None for anything else (foreign values)."""
    if not isinstance(value, str) or not value.startswith(ENCRYPTED_PREFIX):
        return None
    try:
        return base64.urlsafe_b64decode(value[len(ENCRYPTED_PREFIX) :]).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
