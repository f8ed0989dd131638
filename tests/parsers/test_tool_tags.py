"""Tags named after an offered tool, found in any family under the tool-tag rule, and the XML
and HTML of ordinary answers that must stay text."""

from __future__ import annotations

import json
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from parser_helpers import assemble, cut, make_context, normalise, run

from toolcall_middleware.events import Event
from toolcall_middleware.parsers import ParserContext, Tool, create_parser, formats
from toolcall_middleware.parsers.sniff import family_parser

READ = Tool(
    "read",
    {
        "type": "object",
        "properties": {"filePath": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["filePath"],
    },
)
TABLE = Tool(
    "table",
    {
        "type": "object",
        "properties": {"caption": {"type": "string"}, "rows": {"type": "array"}},
        "required": ["rows"],
    },
)
CONTEXT = ParserContext(tools=(READ, TABLE, *make_context("get_time").tools))
# Every format a model name picks, and the markers-only reading of unknown names.
DEFAULTS = [name for name, fmt in formats().items() if fmt.model_names]
PROVIDERS = [*DEFAULTS, None]
CALL = "<read>\n<filePath>/home/user/package.json</filePath>\n<limit>200</limit>\n</read>"


def parse_auto(provider: str | None, pieces: Iterable[str]) -> list[Event]:
    parser = (
        create_parser("sniff", CONTEXT) if provider is None else family_parser(provider, CONTEXT)
    )
    return normalise(run(parser, pieces))


def agreed(provider: str | None, text: str) -> list[Event]:
    """The events of ``text``, the same fed whole, character by character, and in halves."""
    whole = parse_auto(provider, [text])
    assert parse_auto(provider, list(text)) == whole
    for point in range(1, len(text), 3):
        assert parse_auto(provider, [text[:point], text[point:]]) == whole, point
    return whole


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_tool_tag_call_is_a_call_whatever_the_name_chooses(provider: str | None) -> None:
    result = assemble(agreed(provider, f"I'll read it.\n\n{CALL}\nDone."))
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("read", '{"filePath": "/home/user/package.json", "limit": 200}')
    ]
    assert result.text == "I'll read it.\n\n\nDone."


def test_a_call_with_no_parameters_and_one_with_spaces_before_the_line_break() -> None:
    text = "<get_time>\n</get_time>\n<read>  \r\n  <filePath>a</filePath>  </read>"
    result = assemble(agreed("hermes", text))
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("get_time", ""),
        ("read", '{"filePath": "a"}'),
    ]


# What ordinary answers hold: tags of an offered tool's name that are not calls.
NOT_CALLS = {
    "an HTML table in a code answer, beside a tool named table": (
        "Here is the page:\n```html\n<table>\n  <tr><td>1</td></tr>\n</table>\n```\n"
    ),
    "the table tag with a caption child but a row that is no parameter": (
        "<table>\n<caption>Totals</caption>\n<tr><td>1</td></tr>\n</table>"
    ),
    "XML discussed in prose, on one line": (
        "To read a file, answer <read><filePath>/a</filePath></read> and wait."
    ),
    "the tag named in a sentence": "The <read> tool gives me the file; I will use it now.",
    "children that are not the tool's parameters": (
        "<read>\n<path>/a</path>\n<encoding>utf-8</encoding>\n</read>"
    ),
    "a required parameter missing": "<read>\n<limit>5</limit>\n</read>",
    "a parameter given twice": "<read>\n<filePath>a</filePath>\n<filePath>b</filePath>\n</read>",
    "text between the children": "<read>\n<filePath>a</filePath> and then\n</read>",
    "a child left open": "<read>\n<filePath>a\n</read>",
    "unfinished at the end": "Let me read.\n<read>\n<filePath>/a</filePath>\n",
    "no line break after the opening tag": "<read><filePath>a</filePath>\n</read>",
    "the closing tag before the line break": "<get_time></get_time>",
}


@pytest.mark.parametrize("provider", ["hermes", "kimi_k2", "glm45", None])
@pytest.mark.parametrize("case", NOT_CALLS)
def test_xml_and_html_of_an_ordinary_answer_stay_text(provider: str | None, case: str) -> None:
    text = NOT_CALLS[case]
    result = assemble(agreed(provider, text))
    assert (result.text, result.calls) == (text, [])


def test_a_tag_that_is_not_a_call_leaves_the_rest_to_be_read() -> None:
    text = "<read>\n<path>x</path>\n</read>\n" + CALL
    result = assemble(agreed("hermes", text))
    assert result.text == "<read>\n<path>x</path>\n</read>\n"
    assert [c.name for c in result.calls] == ["read"]


def test_an_explicit_qwen_xml_keeps_taking_any_tool_tag() -> None:
    text = "See <read><filePath>/a</filePath></read>."
    result = assemble(normalise(run(create_parser("qwen_xml", CONTEXT), [text])))
    assert [c.arguments for c in result.calls] == ['{"filePath": "/a"}']


PIECES = [
    "<read>",
    "</read>",
    "<filePath>",
    "</filePath>",
    "<limit>",
    "</limit>",
    "<table>",
    "</table>",
    "<tr>",
    "\n",
    " ",
    "x",
    "3",
    "<",
    "/",
    ">",
]


@pytest.mark.parametrize("provider", ["hermes", "mistral", None])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_any_cut_of_tag_soup_gives_the_same_events(
    provider: str | None, data: st.DataObject
) -> None:
    text = data.draw(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
    cuts = data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=10))
    whole = parse_auto(provider, [text])
    assert parse_auto(provider, cut(text, cuts)) == whole
    assert parse_auto(provider, list(text)) == whole
    for call in assemble(whole).calls:  # only calls that keep the rule
        tool = CONTEXT.tool(call.name)
        assert tool is not None
        keys = set(json.loads(call.arguments)) if call.arguments else set()
        assert tool.required_names <= keys <= tool.property_names, (text, call)
