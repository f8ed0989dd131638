"""One precedence for `toolcall serve`: CLI flag > TOOLCALL_* env > TOML file > default."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolcall_middleware.config import ConfigError, load_serve_config


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "toolcall.toml"
    path.write_text(text)
    return path


FILE = """
upstream = "http://file:1"
port = 1111
read_timeout = 30
provider = "openai"
access_log = false
[provider_overrides]
"my-finetune" = "kimi_k2"
"""


def test_each_layer_wins_over_the_next(tmp_path: Path) -> None:
    path = write(tmp_path, FILE)
    env = {"TOOLCALL_PORT": "2222", "TOOLCALL_READ_TIMEOUT": "45.5", "TOOLCALL_PROVIDER": "kimi_k2"}
    config = load_serve_config({"port": 3333}, env=env, config_file=path)
    s, o = config.settings, config.options
    assert s.port == 3333  # CLI over env
    assert s.read_timeout == 45.5  # env over file
    assert o.provider == "kimi_k2"  # env over file, for a middleware option too
    assert s.upstream == "http://file:1"  # file over default
    assert s.access_log is False
    assert dict(o.provider_overrides) == {"my-finetune": "kimi_k2"}
    assert s.connect_timeout == 5.0 and s.host == "127.0.0.1"  # defaults


def test_cli_none_means_not_given_and_env_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, 'upstream = "http://file:1"\nmax_connections = 7\n')
    config = load_serve_config({"upstream": None}, env={"TOOLCALL_CONFIG": str(path)})
    assert config.settings.upstream == "http://file:1"
    assert config.settings.max_connections == 7


def test_defaults_without_any_source() -> None:
    config = load_serve_config({}, env={})
    assert config.settings.upstream is None  # the bundled replay app
    assert (config.settings.host, config.settings.port) == ("127.0.0.1", 8080)
    assert config.options.provider == "auto"


@pytest.mark.parametrize(
    ("text", "env", "message"),
    [
        ("colour = 'blue'\n", {}, "unknown option(s) colour"),
        ("port = 'eighty'\n", {}, "port must be an integer"),
        ("read_timeout = true\n", {}, "read_timeout must be a number"),
        ("port = [\n", {}, "not valid TOML"),
        ("", {"TOOLCALL_PORT": "http"}, "TOOLCALL_PORT must be an integer"),
        ("", {"TOOLCALL_READ_TIMEOUT": "soon"}, "TOOLCALL_READ_TIMEOUT must be a number"),
        ("", {"TOOLCALL_ACCESS_LOG": "maybe"}, "TOOLCALL_ACCESS_LOG must be true or false"),
        ("upstream = 'localhost:8000'\n", {}, "upstream must be an http:// or https:// URL"),
        ("port = 70000\n", {}, "port must be between"),
        ("connect_timeout = 0\n", {}, "connect_timeout must be a positive"),
        ("provider = 'nope'\n", {}, "provider 'nope' is not one of"),
        ("[provider_overrides]\nm = 'nope'\n", {}, "provider_overrides['m']"),
        ("log_level = 'loud'\n", {}, "log_level must be one of"),
        ("workers = 0\n", {}, "workers must be a positive integer"),
        ("workers = 2.5\n", {}, "workers must be an integer"),
        ("drain_timeout = -1\n", {}, "drain_timeout must be zero or a positive number"),
        ("drain_timeout = 'soon'\n", {}, "drain_timeout must be a number"),
        ("", {"TOOLCALL_DRAIN_TIMEOUT": "inf"}, "drain_timeout must be zero or a positive"),
    ],
)
def test_invalid_configuration_is_a_clear_error(
    tmp_path: Path, text: str, env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_serve_config({}, env=env, config_file=write(tmp_path, text))
    assert message in str(caught.value)


def test_missing_config_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_serve_config({}, env={}, config_file=tmp_path / "absent.toml")


def test_serve_exits_non_zero_with_a_message_and_no_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, "read_timeout = 'long'\n")
    result = subprocess.run(
        [sys.executable, "-m", "toolcall_middleware.cli", "serve", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "read_timeout must be a number" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_runs_uvicorns_h11_protocol_even_where_httptools_is_installed() -> None:
    # httptools would answer an ambiguous request with its own bare 400 before the proxy's
    # checks (tests/proxy/test_hostile_requests.py), and uvicorn's "auto" picks it if installed.
    from toolcall_middleware.proxy.server import uvicorn_config

    config = uvicorn_config(object(), load_serve_config({}, env={}))
    assert config.http == "h11"
