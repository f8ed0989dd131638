"""The peers' own test cases through the middleware under ``provider="auto"``: the family's
usual model id picks the format, and the case's calls come out whether its text streams in
``content`` or in the reasoning fields, whole, a character at a time, and cut anywhere."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import body_app, chunk, cut_at, message_of, sse, through
from peer_cases import (
    SGLANG_REASONING,
    VLLM_REASONING,
    PeerCase,
    check,
    request_for,
    streams_of,
)
from peers_catalogue import CASES as CATALOGUE_CASES
from peers_dsml import CASES as DSML_CASES
from peers_gemma4 import CASES as GEMMA4_CASES
from peers_glm_step import CASES as GLM_STEP_CASES
from peers_hy_v3 import CASES as HY_V3_CASES
from peers_json_lists import CASES as JSON_LIST_CASES
from peers_kimi_k3 import CASES as K3_CASES
from peers_kimi_k3 import KIMI_K3
from peers_lfm2 import CASES as LFM2_CASES
from peers_mimo_internlm import CASES as MIMO_INTERNLM_CASES
from peers_minimax_m3 import CASES as M3_CASES
from peers_pythonic import CASES as PYTHONIC_CASES
from peers_seed_oss import CASES as SEED_CASES
from toolcall_middleware import ToolCallMiddleware
from toolcall_middleware.completion import completion_from_sse
from toolcall_middleware.detect import resolve_provider

CASES: list[PeerCase] = [
    *DSML_CASES,
    *M3_CASES,
    *SEED_CASES,
    *GLM_STEP_CASES,
    *HY_V3_CASES,
    *CATALOGUE_CASES,
    *JSON_LIST_CASES,
    *LFM2_CASES,
    *K3_CASES,
    *GEMMA4_CASES,
    *PYTHONIC_CASES,
    *MIMO_INTERNLM_CASES,
]
BY_PROVIDER: dict[str, list[PeerCase]] = {}
for _case in CASES:
    BY_PROVIDER.setdefault(_case.provider, []).append(_case)


def ids(case: PeerCase) -> str:
    return f"{case.provider}: {case.name}"


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_the_model_name_picks_the_format(case: PeerCase) -> None:
    assert resolve_provider("auto", case.model) == case.provider


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_a_peer_case_whole_and_a_character_at_a_time(case: PeerCase) -> None:
    for stream in streams_of(case):
        check(case, stream, [case.text])
        if stream != VLLM_REASONING:  # (its two keys a delta: cut anywhere, below)
            check(case, stream, list(case.text))


@pytest.mark.parametrize("case", CASES, ids=ids)
@settings(max_examples=4, deadline=None)
@given(points=st.lists(st.integers(min_value=0, max_value=5000), max_size=25))
def test_a_peer_case_cut_anywhere(case: PeerCase, points: list[int]) -> None:
    # in content and in vLLM's reasoning fields (SGLang's: the per-format test below; the
    # whole text: the test above)
    for stream in streams_of(case):
        if stream != SGLANG_REASONING:
            check(case, stream, cut_at(case.text, points))


@pytest.mark.parametrize("provider", sorted(BY_PROVIDER))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_cut_of_any_case_of_a_format(provider: str, data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(BY_PROVIDER[provider]))
    points = data.draw(st.lists(st.integers(0, len(case.text)), max_size=12))
    # in content or in SGLang's reasoning field (vLLM's: the per-case test)
    stream = data.draw(st.sampled_from([s for s in streams_of(case) if s != VLLM_REASONING]))
    check(case, stream, cut_at(case.text, points))


def test_k3_reasoning_split_upstream_leaves_the_content_content() -> None:
    # vLLM's kimi_k3 reasoning parser sends the think channel as reasoning and the rest as
    # content: the channel the template opened is the upstream's, and a reply without
    # markers stays the reply.
    case = KIMI_K3[0]
    chunks: list[Any] = [chunk({"role": "assistant", "content": ""}, model=case.model)]
    chunks += [chunk({"reasoning_content": t}, model=case.model) for t in ("Let me ", "think.")]
    chunks += [chunk({"content": t}, model=case.model) for t in ("The answer ", "is 4.")]
    chunks += [chunk({}, "stop", model=case.model), "[DONE]"]
    app = ToolCallMiddleware(body_app([sse(*chunks)]), provider="auto")
    message = message_of(completion_from_sse(anyio.run(through, app, request_for(case))))
    assert (message["reasoning_content"], message["content"]) == (
        "Let me think.",
        "The answer is 4.",
    )
