"""What an upstream's ``finish_reason`` says about the answer: the one table every front reads.

Servers name their finish reasons differently (vLLM, SGLang, llama.cpp, TGI, DeepSeek, Mistral,
GLM, gateways that speak Anthropic's words); each reason falls into one ``Outcome``, and each
front renders an outcome in its own API (docs/outcomes.md):

- ``complete``: the model ended its turn (a stop, tool calls): the only success;
- ``length``: cut at a token limit;
- ``content_filter``: withheld by a filter;
- ``failed``: the server failed or aborted the generation: the reader ends the answer with an
  ``UpstreamError``, so every front sends its API's error, and a call still open is never
  finished (nobody must run its arguments);
- ``incomplete``: stopped early for another reason (vLLM's ``repetition``), and every reason
  this table does not know: an answer nobody said was whole is not reported as one.
"""

from __future__ import annotations

from typing import Literal

from .failures import Kind, UpstreamFailure

Outcome = Literal["complete", "length", "content_filter", "failed", "incomplete"]

OUTCOMES: dict[str, Outcome] = {
    # The model ended its turn.
    "stop": "complete",
    "tool_calls": "complete",
    "function_call": "complete",  # OpenAI's older name, SGLang
    "eos": "complete",  # Together
    "eos_token": "complete",  # TGI
    "stop_sequence": "complete",  # TGI; Anthropic-style gateways
    "end_turn": "complete",  # Anthropic-style gateways
    "tool_use": "complete",  # Anthropic-style gateways
    # Cut at a token limit.
    "length": "length",
    "max_tokens": "length",  # Anthropic-style gateways
    "model_length": "length",  # Mistral: the context window is full
    "model_context_window_exceeded": "length",  # GLM
    # Withheld by a filter.
    "content_filter": "content_filter",
    "sensitive": "content_filter",  # GLM
    "safety": "content_filter",  # Gemini words through a gateway
    "refusal": "content_filter",  # Anthropic-style gateways
    # The server failed.
    "error": "failed",  # vLLM, Mistral
    "abort": "failed",  # vLLM, SGLang: the engine aborted the request
    "network_error": "failed",  # GLM: inference failed
    "insufficient_system_resource": "failed",  # DeepSeek: interrupted for lack of resources
    # Stopped early for another reason.
    "repetition": "incomplete",  # vLLM: the model was stopped repeating itself
}

#: The failure kind of a ``failed`` reason, when it is not ``server``.
_FAILURE_KINDS: dict[str, Kind] = {"insufficient_system_resource": "overloaded"}


def outcome(reason: str) -> Outcome:
    """The outcome of a ``finish_reason`` (case does not matter); ``incomplete`` when unknown."""
    found = OUTCOMES.get(reason)
    return found if found is not None else OUTCOMES.get(reason.lower(), "incomplete")


def failure(reason: str) -> UpstreamFailure:
    """The failure a ``failed`` reason stands for."""
    kind = _FAILURE_KINDS.get(reason.lower(), "server")
    return UpstreamFailure(kind, f"the upstream ended the generation with finish_reason {reason!r}")


def incomplete_message(reason: str) -> str:
    """Why an ``incomplete`` answer is not whole, in words for an API that has no such end."""
    return (
        f"the upstream stopped the generation early (finish_reason {reason!r}): "
        "the answer is incomplete"
    )
