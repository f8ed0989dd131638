"""``StreamState``: where a stream stands after its last rewrite, which is all the SSE layer
needs to know to send the output (``sse_rewriter.py``)."""

from __future__ import annotations

from .limits import LimitExceeded


class StreamState:
    """Where a choice, or a stream, stands after its last rewrite (of a chunk, or the end).

    - ``lag``: how far the output text lags the input (0: not at all): characters of model
      text held back (a possible marker's start), counted while nothing but text comes out;
      -1 once markup was read, until a parser gives its text back as it came again.
    - ``idle``: every choice sits in plain text with nothing held or pending: an event without
      a trigger character, ``tool_calls``, a finish or ``[DONE]`` would come out unchanged and
      change nothing (what the SSE fast path relies on).
    - ``text_only``: the last rewrite's output differs from its input at most in where model
      text is cut (text held back, or given back): events held meanwhile may still go as they
      came.
    - ``exceeded``: the last rewrite passed a cap: its output still goes, then the stream ends
      with this error. (Held data is measured only when the output changes: an unchanged
      chunk never passes a cap.)

    Each choice has one (``ChoiceRewriter.state``), changed in place by each rewrite; a stream
    of one choice, nearly every stream, stands where its choice does.
    """

    __slots__ = ("exceeded", "idle", "lag", "text_only")

    def __init__(self, *, idle: bool) -> None:
        self.lag = 0
        self.idle = idle
        self.text_only = True
        self.exceeded: LimitExceeded | None = None
