"""``Rewrite``: what rewriting one chunk made of it, and where the stream stands after it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .deltas import Delta, Piece
from .limits import LimitExceeded

Chunk = dict[str, Any]


@dataclass(slots=True)
class Rewrite:
    """What the rewrite made of one chunk (or of a pause, or the end of the stream), and where
    the stream stands after it.

    - ``chunks``: what to send in the chunk's place (none: nothing); ``None``: the chunk as it
      came, byte for byte.
    - ``delta``: for a chunk read through its template (``ChunkRewriter.text``), the one delta
      that replaces its delta, everything else as it came; ``chunks`` is then ``None``. A
      piece of arguments comes as a ``Piece``, to be written without being built.
    - ``text_only``: the output differs from the input at most in where model text is cut
      (text held back, or given back): events held meanwhile may still go as they came.
    - ``lag``: how far the output text lags the input (0: not at all): characters of model
      text held back (a possible marker's start), or -1 once markup was read, until a parser
      gives its text back as it came again.
    - ``idle``: every choice sits in plain text with nothing held or pending: an event without
      a trigger character, ``tool_calls``, a finish or ``[DONE]`` would come out unchanged and
      change nothing (what the SSE fast path relies on).
    - ``exceeded``: a cap was passed: send the output, then end the stream with this error.

    Each choice keeps where it stands in a ``Rewrite`` of its own (``ChoiceRewriter.state``),
    and a stream of one choice, nearly every stream, hands out that very object, its output
    filled in: read it before the next rewrite. One object per choice, none per event.
    """

    chunks: list[Chunk] | None
    text_only: bool
    lag: int
    idle: bool
    exceeded: LimitExceeded | None = None
    delta: Delta | Piece | None = None


#: An unchanged chunk of an idle stream.
UNCHANGED_IDLE = Rewrite(None, text_only=True, lag=0, idle=True)
