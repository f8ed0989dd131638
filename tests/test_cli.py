"""The ``toolcall`` command as a newcomer meets it: version, usage, errors on bad input."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

import toolcall_middleware
from toolcall_middleware.cli import main
from toolcall_middleware.parsers import providers

TOOLCALL = Path(sys.executable).with_name("toolcall")


def test_version_is_the_installed_distributions() -> None:
    out = subprocess.run([str(TOOLCALL), "--version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert out.stdout.strip() == f"toolcall {version('toolcall-middleware')}"
    assert toolcall_middleware.__version__ == version("toolcall-middleware")


@pytest.mark.parametrize("command", ["serve", "replay"])
def test_an_unknown_flag_prints_the_commands_own_usage(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main([command, "--bogus-flag"])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: toolcall {command} [-h]")
    assert err.rstrip().endswith(f"toolcall {command}: error: unrecognized arguments: --bogus-flag")


def test_every_provider_is_offered_in_the_help_sniff_included(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert "sniff" in providers()
    for command in ("serve", "replay"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        help_text = " ".join(capsys.readouterr().out.split())
        assert f"or one of {', '.join(providers())}" in help_text


@pytest.mark.parametrize(
    "content",
    [b"", b"hello\nworld\n", b"<html><body>502 Bad Gateway</body></html>\n", b": ping\n\n"],
)
def test_replay_of_a_file_without_sse_says_so_and_fails(
    content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = tmp_path / "capture.log"
    capture.write_bytes(content)
    assert main(["replay", str(capture)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "toolcall: error: capture: no SSE events (no 'data:' lines) and not a JSON body; "
        "capture a response with curl -N ... > FILE\n"
    )
