"""LFM2 cases: SGLang's ``Lfm2Detector`` (its docstring's examples), Liquid AI's model-card
example, and the cases llama.cpp and Ollama test their LFM2 readers with."""

from __future__ import annotations

from typing import Any

from peer_cases import PeerCase

LFM2 = "LiquidAI/LFM2-1.2B-Tool"
LFM25 = "LiquidAI/LFM2.5-1.2B-Instruct"
START, END = "<|tool_call_start|>", "<|tool_call_end|>"
JSON_FORM = "we differ: SGLang reads the JSON form between the tokens as calls; it stays text here"


def lfm2(
    name: str,
    text: str,
    calls: list[tuple[str, dict[str, Any]]],
    content: str = "",
    model: str = LFM2,
    **kw: Any,
) -> PeerCase:
    return PeerCase(f"{name} (LFM2)", "lfm2", model, text, calls, content, **kw)


CASES = [
    lfm2(
        "no tool call",
        "The candidate is in the interview stage.",
        [],
        "The candidate is in the interview stage.",
    ),
    lfm2(
        "model card: one call after text",
        f'Let me check that.{START}[get_candidate_status(candidate_id="12345")]{END}',
        [("get_candidate_status", {"candidate_id": "12345"})],
        "Let me check that.",
    ),
    lfm2(
        "detector: one call",
        f'{START}[calculator(expression="5 * 7")]{END}',
        [("calculator", {"expression": "5 * 7"})],
    ),
    lfm2(
        "detector: two calls",
        f'{START}[get_weather(city="Paris"), get_time(zone="CET")]{END}',
        [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "CET"})],
    ),
    lfm2(
        "literals: numbers, booleans, None, lists, dicts",
        f"{START}[search(query='weather', n=3, exact=True, since=None, "
        f"tags=['a', 'b'], opts={{'x': -1.5}})]{END}",
        [
            (
                "search",
                {
                    "query": "weather",
                    "n": 3,
                    "exact": True,
                    "since": None,
                    "tags": ["a", "b"],
                    "opts": {"x": -1.5},
                },
            )
        ],
        model=LFM25,
    ),
    lfm2(
        "a call without arguments, then text",
        f"{START}[get_time()]{END}\nDone.",
        [("get_time", {})],
        "\nDone.",
    ),
    lfm2(
        "non-ASCII values",
        f'{START}[get_weather(city="北京")]{END}',
        [("get_weather", {"city": "北京"})],
        model=LFM25,
    ),
    lfm2(
        "the JSON form",
        f'{START}[{{"name": "calculator", "arguments": {{"expression": "5 * 7"}}}}]{END}',
        [],
        '[{"name": "calculator", "arguments": {"expression": "5 * 7"}}]',
        note=JSON_FORM,
    ),
]
