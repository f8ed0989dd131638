"""The examples run as documented: ``pip install -e '.[examples]'``, then ``.venv/bin/uvicorn
examples.fastapi_app:app`` from the checkout."""

from __future__ import annotations

import ast
import re
import socket
import subprocess
import sys
import time
from importlib.metadata import packages_distributions
from pathlib import Path

import httpx
import openai
import pytest

from toolcall_middleware import metrics

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def requirement_names(requirements: list[str]) -> set[str]:
    return {
        re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements
    }


def imported_distributions(path: Path) -> set[str]:
    """The distributions whose modules ``path`` imports, the package's own and stdlib's aside."""
    modules = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    modules -= {*sys.stdlib_module_names, "toolcall_middleware", "__future__"}
    found = packages_distributions()
    return {dist.lower() for module in modules for dist in found[module]}


def test_the_examples_extra_holds_what_the_examples_import_and_the_server() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    installed = requirement_names(project["dependencies"]) | requirement_names(
        project["optional-dependencies"]["examples"]
    )
    assert EXAMPLES
    for example in EXAMPLES:
        assert imported_distributions(example) <= installed, example.name
    assert "uvicorn" in installed


def test_the_documented_fastapi_command_serves_repaired_calls() -> None:
    uvicorn = Path(sys.executable).with_name("uvicorn")  # the venv's, as the docs say
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        [str(uvicorn), "examples.fastapi_app:app", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", max_retries=0)
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        with client.chat.completions.stream(
            model="kimi-k2",
            messages=[{"role": "user", "content": "weather?"}],
            tools=[{"type": "function", "function": {"name": "get_weather"}}],
        ) as stream:
            final = stream.get_final_completion()
    finally:
        server.terminate()
        server.wait(15)
    call = (final.choices[0].message.tool_calls or [])[0]
    assert (call.function.name, call.function.arguments) == ("get_weather", '{"city": "Paris"}')
    assert final.choices[0].finish_reason == "tool_calls"


@pytest.mark.anyio
async def test_metrics_without_the_extra_name_an_install_that_exists(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(metrics, "prometheus_client", None)
    sent: list[dict[str, object]] = []

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    await metrics.metrics_app()(
        {"type": "http", "method": "GET", "path": "/metrics"}, receive, send
    )
    assert sent[0]["status"] == 501
    text = bytes(sent[1]["body"]).decode()  # type: ignore[arg-type]
    assert "install -e" in text and "[metrics]" in text
    assert "toolcall-middleware[metrics]" not in text
