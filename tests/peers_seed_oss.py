"""Seed-OSS cases from vLLM's ``test_seed_oss_tool_parser.py``.

vLLM's tool parser leaves the think block in the content (its reasoning parser takes it out);
here the format's own ``<seed:think>`` block is reasoning, so the cases expect its text in the
reasoning field and what follows it as content, the whitespace after each think tag framing.
"""

from __future__ import annotations

from typing import Any

from peer_cases import PeerCase, obj

SEED = "ByteDance-Seed/Seed-OSS-36B-Instruct"
TOOLS = {
    "get_weather": {
        **obj(
            location={
                "type": "string",
                "description": "City and country e.g. Bogotá, Colombia",
            },
            unit={"type": "string", "description": "this is the unit of temperature"},
        ),
        "required": ["location"],
        "additionalProperties": False,
    }
}
CALL = (
    "<seed:tool_call>\n<function=get_weather>\n"
    "<parameter=location>Barcelona, Spain</parameter>\n</function>\n</seed:tool_call>"
)
CALL_WITH_UNIT = CALL.replace(
    "</parameter>", "</parameter>\n<parameter=unit>celsius</parameter>", 1
)
BARCELONA = [("get_weather", {"location": "Barcelona, Spain"})]
BUDGET_512 = (
    "The user's current thinking budget is 512.</seed:cot_budget_reflect>\nLet me analyze the "
    "question. The user wants to know the weather in Barcelona, Spain. Looking at the functions "
    "available, there's a get_weather function that can retrieve the current temperature for a "
    "given location. \n\nFirst, check the parameters required by get_weather: location is "
    'mandatory (needs city and country), and unit is optional. The user provided "Barcelona '
    'Spain" as the location, which fits the required format (city, country). \n'
    "<seed:cot_budget_reflect>I have used 131 tokens, and there are 381 tokens remaining for "
    "use.</seed:cot_budget_reflect>\n Since the unit isn't specified, the function will default "
    "to Celsius, which is fine. \n\nThere's no need to ask for more information because the "
    'location is clear. So I should call the get_weather function with location set to "Barcelona, '
    "Spain\" (adding a comma for clarity, though the user's input has a space, but the function "
    "might accept either; to be safe, using the standard format with a comma).\n"
    "<seed:cot_budget_reflect>I have used 257 tokens, and there are 255 tokens remaining for "
    "use.</seed:cot_budget_reflect>\n The unit parameter can be omitted since it's optional."
)
UNLIMITED = (
    "Got it, let's see. The user asked for the weather in Barcelona, Spain. First, I need to "
    "remember the function I can use: get_weather. The function requires a location (city and "
    'country) which is "Barcelona, Spain" here, and unit is optional. Since the user didn\'t '
    "specify the unit, the default in the function is Celsius, right? Wait, let me check the "
    "function docstring again. Oh, the function says unit is optional, and returns temperature "
    'in Celsius. So I should call get_weather with location "Barcelona, Spain" and maybe omit '
    "unit or set to Celsius. Let me format the function call correctly. The format is "
    "<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain</parameter>"
    "\n<parameter=unit>celsius</parameter>\n</function>\n</seed:tool_call>. Wait, but does the "
    'unit parameter accept "celsius"? The docstring says unit is the unit of temperature, but the '
    "return is in Celsius anyway. Maybe even if I don't pass unit, it's okay, but to be "
    'explicit, maybe pass "celsius". Let me go with that. So the function call should be as '
    "above. Then wait for the result to come back and tell the user the temperature in Celsius."
)
BUDGET_0 = (
    "</seed:cot_budget_reflect>\n</seed:cot_budget_reflect>\nThe current thinking budget is 0, "
    "so I will directly start answering the question.\n"
)


def seed(
    name: str,
    text: str,
    calls: list[tuple[str, dict[str, Any]]],
    content: str = "",
    reasoning: str = "",
) -> PeerCase:
    return PeerCase(f"vllm:{name}", "seed_oss", SEED, text, calls, content, reasoning, TOOLS)


CASES = [
    seed(
        "test_extract_tool_calls_no_tools",
        "This is a test response without any tool calls",
        [],
        "This is a test response without any tool calls",
    ),
    seed("test_extract_tool_calls[tool_call_0_thinking_budget]", CALL, BARCELONA),
    seed(
        "test_extract_tool_calls[tool_call_512_thinkg_budget]",
        f"<seed:think>{BUDGET_512}</seed:think>\n{CALL}",
        BARCELONA,
        reasoning=BUDGET_512,
    ),
    seed(
        "test_extract_tool_calls[tool_call_unlimited_thinking_budget] (a call quoted in the "
        "thinking is not a call)",
        f"<seed:think>\n{UNLIMITED}</seed:think>{CALL_WITH_UNIT}",
        [("get_weather", {"location": "Barcelona, Spain", "unit": "celsius"})],
        reasoning=UNLIMITED,
    ),
    seed(
        "test_streaming_tool_calls[tool_call_0_thinking_budget]",
        f"<seed:think>\n{BUDGET_0}</seed:think>\n{CALL}",
        BARCELONA,
        reasoning=BUDGET_0,
    ),
]
