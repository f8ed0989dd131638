"""The peers' own test cases through the middleware under ``provider="auto"``: the family's
usual model id picks the format, and the case's calls come out whether its text streams in
``content`` or in the reasoning fields, cut anywhere."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from peer_cases import PeerCase, check, through_middleware
from peers_catalogue import CASES as CATALOGUE_CASES
from peers_dsml import CASES as DSML_CASES
from peers_glm_step import CASES as GLM_STEP_CASES
from peers_json_lists import CASES as JSON_LIST_CASES
from peers_lfm2 import CASES as LFM2_CASES
from peers_minimax_m3 import CASES as M3_CASES
from peers_seed_oss import CASES as SEED_CASES
from toolcall_middleware.detect import resolve_provider

CASES: list[PeerCase] = [
    *DSML_CASES,
    *M3_CASES,
    *SEED_CASES,
    *GLM_STEP_CASES,
    *CATALOGUE_CASES,
    *JSON_LIST_CASES,
    *LFM2_CASES,
]
FIELDS = ("content", "reasoning")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_model_name_picks_the_format(case: PeerCase) -> None:
    assert resolve_provider("auto", case.model) == case.provider


@pytest.mark.parametrize("text_field", FIELDS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@settings(max_examples=4, deadline=None)
@given(points=st.lists(st.integers(min_value=0, max_value=5000), max_size=25))
@example(points=[])
def test_a_peer_case_through_the_middleware(
    case: PeerCase, text_field: str, points: list[int]
) -> None:
    if text_field not in case.fields:
        return
    check(case, text_field, through_middleware(case, text_field, points))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_peer_case_a_character_at_a_time(case: PeerCase) -> None:
    points = list(range(min(len(case.text), 2000)))
    check(case, "content", through_middleware(case, "content", points))
