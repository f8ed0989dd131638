"""``toolcall serve``: the reverse proxy under uvicorn, configured by flags, env and a file."""

from __future__ import annotations

import argparse
import logging
from typing import Any

from .. import __version__, metrics
from ..config import ConfigError, ServeConfig, load_serve_config
from ..extras import install_hint
from ..parsers import providers
from .logs import configure_logging

log = logging.getLogger("toolcall_middleware.serve")


def add_parser(commands: Any) -> None:
    """Register ``serve`` on the ``toolcall`` subcommands (``commands`` from add_subparsers)."""
    serve: argparse.ArgumentParser = commands.add_parser(
        "serve",
        help="run the reverse proxy in front of an OpenAI-compatible server",
        description="Forward every request to the upstream; chat completions come back with "
        "repaired tool calls. Without --upstream, serve the bundled replay of a recorded Kimi K2 "
        "session. Precedence: flags > TOOLCALL_* environment > --config file > defaults.",
    )
    serve.add_argument(
        "--upstream", help="base URL of the model server, e.g. http://127.0.0.1:8000"
    )
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8080)")
    serve.add_argument(
        "--provider", help=f"tool-call format: auto (default) or one of {', '.join(providers())}"
    )
    serve.add_argument(
        "--config", metavar="FILE", help="TOML config file (default: $TOOLCALL_CONFIG)"
    )
    serve.add_argument("--workers", metavar="N", help="processes serving the port (default 1)")
    serve.add_argument(
        "--drain-timeout",
        metavar="SECONDS",
        help="after SIGTERM, how long open requests may still run (default 30)",
    )
    serve.set_defaults(run=run_serve, command_parser=serve)


def run_serve(args: argparse.Namespace) -> int:
    cli = {
        "upstream": args.upstream,
        "host": args.host,
        "port": args.port,
        "provider": args.provider,
        "workers": _flag("--workers", args.workers, int, "an integer"),
        "drain_timeout": _flag("--drain-timeout", args.drain_timeout, float, "a number"),
    }
    config = load_serve_config(cli, config_file=args.config)
    try:
        import uvicorn  # noqa: F401
    except ModuleNotFoundError:
        raise ConfigError(f"toolcall serve needs uvicorn: {install_hint('proxy')}") from None
    from .app import create_proxy_app
    from .listeners import check_port
    from .server import serve_process
    from .workers import serve_workers

    s = config.settings
    configure_logging(s.log_level)
    # Built here, before anything starts, so a bad front option stops the command at once
    # (whether or not the port is free: the configuration's errors come first).
    app = create_proxy_app(config)
    check_port(s.host, s.port)  # before anything starts: one line and exit 2, not a traceback
    log.info(
        "starting",
        extra={
            "fields": {
                "event": "starting",
                "version": __version__,
                "listen": f"http://{s.host}:{s.port}",
                "upstream": s.upstream or "bundled replay",
                "provider": config.options.provider,
                "workers": s.workers,
                "config": config.path,
            }
        },
    )
    for feature, reason, turn_on in features_off(config):
        log.info(
            "feature_off",
            extra={
                "fields": {
                    "event": "feature_off",
                    "feature": feature,
                    "reason": reason,
                    "turn_on": turn_on,
                }
            },
        )
    if s.workers == 1:
        return serve_process(config, app=app)
    del app  # each worker builds its own
    return serve_workers(config)


def features_off(config: ServeConfig) -> list[tuple[str, str, str]]:
    """The optional endpoints this configuration leaves off: (feature, why, how to turn it on)."""
    off = []
    if not config.options.metrics:
        off.append(("metrics", "metrics = false", "TOOLCALL_METRICS=true"))
    elif not metrics.available():
        off.append(
            (
                "metrics",
                "prometheus-client (the metrics extra) is not installed: GET /metrics goes to "
                "the upstream",
                install_hint("metrics"),
            )
        )
    if not config.options.admin_key:
        off.append(
            (
                "debug_capture",
                "no admin_key: GET " + config.options.debug_path + " goes to the upstream",
                "TOOLCALL_ADMIN_KEY=<a secret>, sent back as X-Admin-Key",
            )
        )
    return off


def _flag(name: str, raw: str | None, kind: type[float], what: str) -> float | None:
    """A numeric flag, refused the way the same option from the environment or file is."""
    if raw is None:
        return None
    try:
        return kind(raw.strip())
    except ValueError:
        raise ConfigError(f"{name} must be {what}, not {raw!r}") from None
