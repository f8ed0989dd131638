"""The documentation: the generated configuration reference lists every option, and the
README's client setups are the docs' own and run as written against a real ``toolcall serve``."""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest

from toolcall_middleware.parsers import providers

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
DOCS = {path.name: path.read_text() for path in (ROOT / "docs").glob("*.md")}
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def load_reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reference", ROOT / "scripts/docs/reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = load_reference()


def table_rows(markdown: str) -> dict[str, list[str]]:
    """Each row of a generated table by option name: its names (option, variables, flag),
    default, what it takes, meaning."""
    rows = {}
    for line in markdown.splitlines()[2:]:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        names = [n.strip("`") for n in cells[0].split("<br>")]
        rows[names[0]] = [*names, *cells[1:]]
    return rows


@pytest.mark.parametrize("name", ["serve", "middleware", "anthropic", "responses", "gemini"])
def test_the_generated_reference_lists_every_option_with_its_variable_and_meaning(
    name: str,
) -> None:
    options = reference.every_option()[name]
    rows = table_rows(reference.render(name))
    assert list(rows) == options
    prefix = "TOOLCALL_" if name in ("serve", "middleware") else f"TOOLCALL_{name.upper()}_"
    for option, cells in rows.items():
        assert cells[1] == f"{prefix}{option.upper()}", (name, option)
        assert len(cells[-1]) > 10, f"{name}.{option} has no meaning"
        assert "``" not in cells[-1]


def test_the_reference_shows_the_codes_defaults_and_flags() -> None:
    serve = table_rows(reference.render("serve"))
    assert serve["port"] == [
        "port",
        "TOOLCALL_PORT",
        "--port",
        "`8080`",
        "integer",
        "Port the proxy listens on (0: any free port).",
    ]
    assert serve["drain_timeout"][2] == "--drain-timeout"
    assert serve["read_timeout"][1:4] == ["TOOLCALL_READ_TIMEOUT", "`600.0`", "seconds"]
    middleware = table_rows(reference.render("middleware"))
    assert middleware["debug_max"][1:3] == ["TOOLCALL_DEBUG_MAX", "TOOL_CALL_DEBUG_MAX"]
    assert middleware["unknown_tools"][3] == "`forward`, `drop`, `text`"
    assert middleware["think_tags"][3] == "`auto`, `split`, `keep`"
    anthropic = table_rows(reference.render("anthropic"))
    assert anthropic["buffer_tool_input"][2:4] == ["`auto`", "`true`, `false`, `auto`"]
    gemini = table_rows(reference.render("gemini"))
    assert gemini["max_body_bytes"][2] == "`20971520`"


def test_every_provider_is_listed_sniff_included() -> None:
    listed = reference.render("providers")
    assert listed == ", ".join(f"`{p}`" for p in ("auto", *providers()))
    assert "`sniff`" in listed
    middleware = table_rows(reference.render("middleware"))
    assert all(f"`{p}`" in middleware["provider"][3] for p in providers())


def test_the_configuration_page_has_a_generated_block_for_every_table() -> None:
    page = DOCS["configuration.md"]
    blocks = re.findall(r"<!-- options:(\w+) -->", page)
    assert sorted(blocks) == sorted([*reference.every_option(), "providers"])
    filled = reference.fill(page)
    for option in ("ready_path", "upstream_fields_by_model", "thought_signatures", "ping_interval"):
        assert f"| `{option}`<br>" in filled
    assert "Generated when the site is built" not in filled


def test_the_readmes_links_point_at_files_that_exist() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).is_file(), target


def test_ci_runs_exactly_the_readmes_test_command_and_builds_the_docs_strictly() -> None:
    ci = (ROOT / ".ci/run").read_text().splitlines()
    test_command = (
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"
    )
    assert test_command in README and test_command in ci
    assert any(line.endswith('mkdocs build --strict --site-dir "$(mktemp -d)"') for line in ci)


def readme_python_setups() -> list[str]:
    return [code for lang, code in FENCE.findall(README) if lang == "python"]


def sdk_setups() -> list[str]:
    """Every Python setup of the README and the docs that talks to a served proxy, once."""
    found = []
    for text in (README, *DOCS.values()):
        for lang, code in FENCE.findall(text):
            if lang == "python" and "127.0.0.1:8080" in code and code not in found:
                found.append(code)
    return found


def test_the_readme_and_the_docs_have_a_setup_for_each_sdk() -> None:
    setups = "\n".join(sdk_setups())
    for client in ("OpenAI(", "client.responses.stream(", "anthropic.Anthropic(", "genai.Client("):
        assert client in setups
    assert len(readme_python_setups()) == 3


def test_every_setup_in_the_readme_is_one_of_the_docs() -> None:
    blocks = [code for lang, code in FENCE.findall(README) if lang in ("python", "toml")]
    assert len(blocks) >= 4
    docs = "\n".join(DOCS.values())
    for code in blocks:
        assert code in docs, code[:80]


@pytest.fixture(scope="module")
def served() -> Iterator[int]:
    """``toolcall serve`` on its bundled default, as the README's first command runs it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "toolcall_middleware.cli", "serve", "--port", str(port)],
        env={**os.environ, "TOOLCALL_REPLAY_PACE": "0"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        yield port
    finally:
        process.terminate()
        process.wait(30)


@pytest.mark.parametrize("index", range(len(sdk_setups())))
def test_each_sdk_setup_runs_as_written_against_the_bundled_default(
    index: int, served: int, tmp_path: Path
) -> None:
    code = sdk_setups()[index].replace("127.0.0.1:8080", f"127.0.0.1:{served}")
    script = tmp_path / "setup.py"
    script.write_text(code)
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    # Every setup prints the recorded session's two bash calls, however its API shows them.
    assert sum("bash" in line or "tool_use" in line for line in lines) >= 2, out.stdout
    assert "ls -la /usr/include" in out.stdout
