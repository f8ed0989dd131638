"""GLM-4.7 / 5.x cases (vLLM's ``test_glm47_moe_tool_parser.py``, SGLang's
``test_glm47_moe_detector.py``) read by ``glm45``, and Step 3.5 cases (vLLM's
``test_step3p5_tool_parser.py``) read by ``qwen3_coder``."""

from __future__ import annotations

from typing import Any

from peer_cases import PeerCase, obj

GLM47 = "zai-org/GLM-4.7"
GLM5 = "zai-org/GLM-5"
STEP = "stepfun-ai/Step-3.5-Flash"
GLM_TOOLS = {
    "get_current_date": {},
    "get_weather": obj(city={"type": "string"}, date={"type": "string"}),
}
BEIJING = ("get_weather", {"city": "Beijing"})
NEWLINES_KEPT = "we differ: text around calls is kept as the model wrote it, whitespace too"


def glm(name: str, text: str, calls: list[tuple[str, dict[str, Any]]], **kw: Any) -> PeerCase:
    return PeerCase(f"vllm:{name}", "glm45", GLM47, text, calls, tools=GLM_TOOLS, **kw)


def glm5(name: str, text: str, calls: list[tuple[str, dict[str, Any]]], **kw: Any) -> PeerCase:
    kw.setdefault("tools", {"get_weather": GLM_TOOLS["get_weather"]})
    return PeerCase(f"sglang:{name}", "glm45", GLM5, text, calls, **kw)


TODOS = [
    {"id": "1", "task": "Check for hard-coded issues in the backend code", "status": "in_progress"},
    {"id": "2", "task": "Check for hard-coded issues in the frontend code", "status": "pending"},
    {
        "id": "3",
        "task": "Check for code violating the Single Responsibility Principle",
        "status": "pending",
    },
    {"id": "4", "task": "Generate a rectification proposal report", "status": "pending"},
]
TODO_TOOLS = {"todo_write": obj(todos={"type": "array", "description": "The updated todo list"})}
STEP_TOOLS = {
    "get_current_weather": {
        **obj(
            city={"type": "string", "description": "The city name"},
            state={"type": "string", "description": "The state code"},
            unit={"type": "string", "enum": ["fahrenheit", "celsius"]},
        ),
        "required": ["city", "state"],
    },
    "calculate_area": obj(
        shape={"type": "string"}, dimensions={"type": "object"}, precision={"type": "integer"}
    ),
}
DALLAS = (
    "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
    "<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n"
    "</function>\n</tool_call>"
)
DALLAS_CALL = ("get_current_weather", {"city": "Dallas", "state": "TX", "unit": "fahrenheit"})


def step(
    name: str, text: str, calls: list[tuple[str, dict[str, Any]]], content: str = "", **kw: Any
) -> PeerCase:
    kw.setdefault("tools", STEP_TOOLS)
    return PeerCase(f"vllm:{name}", "qwen3_coder", STEP, text, calls, content, **kw)


CASES = [
    glm("test_no_tool_call", "This is a plain response.", [], content="This is a plain response."),
    glm(
        "test_zero_arg_inline",
        "<tool_call>get_current_date</tool_call>",
        [("get_current_date", {})],
    ),
    glm(
        "test_zero_arg_newline",
        "<tool_call>get_current_date\n</tool_call>",
        [("get_current_date", {})],
    ),
    glm(
        "test_args_same_line",
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
        [BEIJING],
    ),
    glm(
        "test_args_with_newlines",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
        "</tool_call>",
        [BEIJING],
    ),
    glm(
        "test_content_before",
        "Checking.<tool_call>get_current_date</tool_call>",
        [("get_current_date", {})],
        content="Checking.",
    ),
    glm(
        "test_multiple",
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>"
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Shanghai</arg_value></tool_call>",
        [BEIJING, ("get_weather", {"city": "Shanghai"})],
    ),
    glm(
        "test_whitespace_content_none",
        "  \n  <tool_call>get_current_date</tool_call>",
        [("get_current_date", {})],
        content="  \n  ",
        note=NEWLINES_KEPT + " (vLLM drops whitespace-only content)",
    ),
    glm(
        "TestGlm47Streaming::test_with_args",
        "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
        [BEIJING],
    ),
    glm5(
        "test_single_tool_call",
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value>"
        "<arg_key>date</arg_key><arg_value>2024-06-27</arg_value></tool_call>",
        [("get_weather", {"city": "Beijing", "date": "2024-06-27"})],
    ),
    glm5(
        "test_multiple_tool_calls",
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value>"
        "<arg_key>date</arg_key><arg_value>2024-06-27</arg_value></tool_call>"
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Shanghai</arg_value>"
        "<arg_key>date</arg_key><arg_value>2024-06-28</arg_value></tool_call>",
        [
            ("get_weather", {"city": "Beijing", "date": "2024-06-27"}),
            ("get_weather", {"city": "Shanghai", "date": "2024-06-28"}),
        ],
    ),
    glm5(
        "test_no_arg_function_non_streaming",
        "<tool_call>list_filenames</tool_call>",
        [("list_filenames", {})],
        tools={"list_filenames": obj()},
    ),
    glm5(
        "test_invalid_tool_call",
        "<tool_call>invalid_func<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
        [("invalid_func", {"city": "Beijing"})],
        note="we differ by default: a call to a tool the request did not offer is forwarded "
        "(unknown_tools='drop' drops it, as SGLang does)",
    ),
    glm5(
        "test_array_argument_with_escaped_json",
        "<tool_call>todo_write<arg_key>todos</arg_key><arg_value>"
        + str(TODOS).replace("'", '"')
        + "</arg_value>\n</tool_call>",
        [("todo_write", {"todos": TODOS})],
        tools=TODO_TOOLS,
    ),
    glm5(
        "test_array_argument_with_escaped_json (Windows path)",
        "<tool_call>todo_write<arg_key>todos</arg_key><arg_value>"
        '[{"id": "1", "task": "Check file at C:\\\\Users\\\\test.txt", "status": "pending"}]'
        "</arg_value></tool_call>",
        [
            (
                "todo_write",
                {
                    "todos": [
                        {"id": "1", "task": r"Check file at C:\Users\test.txt", "status": "pending"}
                    ]
                },
            )
        ],
        tools=TODO_TOOLS,
    ),
    glm5(
        "test_mtp_func_and_string_split",
        "I'll create a task.<tool_call>create_task<arg_key>title</arg_key><arg_value>Go to "
        "Beijing</arg_value><arg_key>location</arg_key><arg_value>San Francisco</arg_value>"
        "</tool_call>",
        [("create_task", {"title": "Go to Beijing", "location": "San Francisco"})],
        content="I'll create a task.",
        tools={"create_task": obj(title={"type": "string"}, location={"type": "string"})},
    ),
    glm5(
        "test_mtp_noarg_and_multiple_calls",
        "<tool_call>list_files</tool_call>"
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
        [("list_files", {}), BEIJING],
        tools={"list_files": obj(), "get_weather": obj(city={"type": "string"})},
    ),
    step(
        "test_extract_tool_calls_no_tools",
        "This is a test response without any tool calls",
        [],
        "This is a test response without any tool calls",
    ),
    step("test_extract_tool_calls[single_tool]", DALLAS, [DALLAS_CALL]),
    step(
        "test_extract_tool_calls[single_tool_with_content]",
        "Sure! Let me check the weather for you." + DALLAS,
        [DALLAS_CALL],
        "Sure! Let me check the weather for you.",
    ),
    step(
        "test_extract_tool_calls[single_tool_multiline_param]",
        "<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n"
        '<parameter=dimensions>\n{"width": 10, \n "height": 20}\n</parameter>\n'
        "<parameter=precision>\n2\n</parameter>\n</function>\n</tool_call>",
        [
            (
                "calculate_area",
                {"shape": "rectangle", "dimensions": {"width": 10, "height": 20}, "precision": 2},
            )
        ],
    ),
    step(
        "test_extract_tool_calls[parallel_tools]",
        DALLAS + "\n" + DALLAS.replace("Dallas", "Orlando").replace("TX", "FL"),
        [
            DALLAS_CALL,
            ("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}),
        ],
        "\n",
        note=NEWLINES_KEPT,
    ),
    step(
        "test_extract_tool_calls[tool_with_typed_params]",
        "Let me calculate that area for you.<tool_call>\n<function=calculate_area>\n"
        "<parameter=shape>\ncircle\n</parameter>\n<parameter=dimensions>\n"
        '{"radius": 15.5}\n</parameter>\n<parameter=precision>\n3\n</parameter>\n</function>\n'
        "</tool_call>",
        [("calculate_area", {"shape": "circle", "dimensions": {"radius": 15.5}, "precision": 3})],
        "Let me calculate that area for you.",
    ),
    step(
        "test_extract_tool_calls_fallback_no_tags",
        "<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
        "<parameter=state>\nTX\n</parameter>\n</function>",
        [("get_current_weather", {"city": "Dallas", "state": "TX"})],
    ),
    step(
        "test_extract_tool_calls_type_conversion",
        "<tool_call>\n<function=test_types>\n<parameter=int_param>\n42\n</parameter>\n"
        "<parameter=float_param>\n3.14\n</parameter>\n<parameter=bool_param>\ntrue\n"
        "</parameter>\n<parameter=str_param>\nhello world\n</parameter>\n<parameter=obj_param>\n"
        '{"key": "value"}\n</parameter>\n</function>\n</tool_call>',
        [
            (
                "test_types",
                {
                    "int_param": 42,
                    "float_param": 3.14,
                    "bool_param": True,
                    "str_param": "hello world",
                    "obj_param": {"key": "value"},
                },
            )
        ],
        tools={
            "test_types": obj(
                int_param={"type": "integer"},
                float_param={"type": "float"},
                bool_param={"type": "boolean"},
                str_param={"type": "string"},
                obj_param={"type": "object"},
            )
        },
    ),
]
