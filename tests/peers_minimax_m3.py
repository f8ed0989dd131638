"""MiniMax M3 cases from vLLM's ``test_minimax_m3_tool_parser.py``."""

from __future__ import annotations

from typing import Any

from peer_cases import PeerCase, obj
from toolcall_middleware.parsers.minimax_m3 import NS

M3 = "MiniMaxAI/MiniMax-M3"
TOOLS = {
    "create_order": obj(
        user_id={"type": "integer"},
        urgent={"type": "boolean"},
        note={"type": "string"},
        shipping=obj(city={"type": "string"}, zip={"type": "integer"}),
        items={
            "type": "array",
            "items": obj(sku={"type": "string"}, qty={"type": "integer"}),
        },
        metadata={"type": "object", "additionalProperties": {"type": "string"}},
        duplicate_demo={"type": "object"},
    )
}
ORDER = (
    f"{NS}<tool_call>\n"
    f'{NS}<invoke name="create_order">'
    f"{NS}<user_id>42{NS}</user_id>"
    f"{NS}<urgent>true{NS}</urgent>"
    f"{NS}<note>Please leave at front desk.{NS}</note>"
    f"{NS}<shipping>"
    f"{NS}<city>Singapore{NS}</city>"
    f"{NS}<zip>018956{NS}</zip>"
    f"{NS}</shipping>"
    f"{NS}<items>"
    f"{NS}<item>{NS}<sku>book-001{NS}</sku>{NS}<qty>2{NS}</qty>{NS}</item>"
    f"{NS}<item>{NS}<sku>pen-007{NS}</sku>{NS}<qty>5{NS}</qty>{NS}</item>"
    f"{NS}</items>"
    f"{NS}<metadata>"
    f"{NS}<source>mobile{NS}</source>"
    f"{NS}<campaign>may-launch{NS}</campaign>"
    f"{NS}</metadata>"
    f"{NS}<duplicate_demo>"
    f"{NS}<tag>a{NS}</tag>"
    f"{NS}<tag>b{NS}</tag>"
    f"{NS}</duplicate_demo>"
    f"{NS}</invoke>\n"
    f"{NS}</tool_call>"
)
ORDER_ARGUMENTS = {
    "user_id": 42,
    "urgent": True,
    "note": "Please leave at front desk.",
    "shipping": {"city": "Singapore", "zip": 18956},
    "items": [{"sku": "book-001", "qty": 2}, {"sku": "pen-007", "qty": 5}],
    "metadata": {"source": "mobile", "campaign": "may-launch"},
    "duplicate_demo": {"tag": ["a", "b"]},
}


def invocation(user_id: int) -> str:
    return f'{NS}<invoke name="create_order">{NS}<user_id>{user_id}{NS}</user_id>{NS}</invoke>'


def m3(
    name: str, text: str, calls: list[tuple[str, dict[str, Any]]], content: str = "", note: str = ""
) -> PeerCase:
    return PeerCase(f"vllm:{name}", "minimax_m3", M3, text, calls, content, tools=TOOLS, note=note)


CASES = [
    m3(
        "test_non_streaming_nested_tool_call",
        "I will create it.\n" + ORDER,
        [("create_order", ORDER_ARGUMENTS)],
        "I will create it.\n",
    ),
    m3(
        "test_non_streaming_without_tool_call_keeps_content", "plain response", [], "plain response"
    ),
    m3(
        "test_non_streaming_multiple_tool_calls",
        f"{NS}<tool_call>\n{invocation(1)}\n{invocation(2)}\n{NS}</tool_call>",
        [("create_order", {"user_id": 1}), ("create_order", {"user_id": 2})],
    ),
    m3(
        "test_streaming_flushes_partial_tool_start_as_text",
        f"plain {NS}<tool_ca",
        [],
        f"plain {NS}<tool_ca",
    ),
    m3(
        "test_streaming_error_recovery_keeps_committed_tool_call_structured",
        f'plain {NS}<tool_call>\n{invocation(1)}\n{NS}<invoke name="create_order">{NS}<user_id>2',
        [("create_order", {"user_id": 1}), ("create_order", {"user_id": 2})],
        "plain ",
        note="we differ: a call cut off by the end of the stream keeps what arrived (vLLM gives "
        "the unfinished invoke back as text)",
    ),
    m3(
        "test_streaming_parse_error_emits_buffer_and_later_deltas",
        f"{NS}<tool_call>\n{NS}</user_id> after error",
        [],
        "after error",
        note="we differ: a closing tag with no place in the block is a stray, dropped; the prose "
        "after it ends the block (its leading space is framing); vLLM gives all after the "
        "block's opening tag back as text",
    ),
]
