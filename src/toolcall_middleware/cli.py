"""The ``toolcall`` command: ``toolcall replay [LOG] [--provider P] [--summary]`` and ``serve``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import anyio
import orjson

from . import __version__
from .config import ConfigError
from .middleware import ToolCallMiddleware
from .parsers import providers
from .proxy import serve
from .replay import (
    Recording,
    RecordingError,
    find_recording,
    recording_app,
    request_body,
    run_app,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolcall", description="Repair open-weight model tool calls in OpenAI streams."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    replay = commands.add_parser(
        "replay",
        help="feed a recorded upstream response through the middleware offline",
        description="Feed a recorded upstream response (a bundled sse_logs/ name, or a file "
        "holding a raw SSE or JSON body) through ToolCallMiddleware and print what a client "
        "would receive.",
    )
    replay.add_argument(
        "log",
        nargs="?",
        help="recording file or bundled name (default: the bundled Kimi K2 two-call session)",
    )
    replay.add_argument(
        "--provider", default=None, help=f"format to parse: auto or one of {', '.join(providers())}"
    )
    replay.add_argument(
        "--summary", action="store_true", help="print the assembled message instead of the stream"
    )
    replay.set_defaults(run=run_replay, command_parser=replay)
    serve.add_parser(commands)
    return parser


async def replay(recording: Recording, provider: str | None) -> tuple[int, bytes]:
    """The status and body a client receives for ``recording`` through the middleware."""
    app = ToolCallMiddleware(
        recording_app(recording),
        # A recording may name the format it is in (one no model-name rule would pick).
        provider=provider or recording.meta.get("provider"),
        # A bare capture has no request, so no tools: parse it anyway.
        rewrite_without_tools=True,
    )
    status, _, bodies = await run_app(app, request_body(recording))
    return status, b"".join(bodies)


def summary(recording: Recording, body: bytes) -> dict[str, Any]:
    from .completion import completion_from_sse

    completion = completion_from_sse(body) if recording.is_sse else orjson.loads(body)
    choices = completion.get("choices") or [{}]
    message = choices[0].get("message", {})
    return {
        "content": message.get("content"),
        "reasoning": message.get("reasoning_content", message.get("reasoning")),
        "tool_calls": [
            {
                "id": c.get("id"),
                "name": c["function"]["name"],
                "arguments": c["function"]["arguments"],
            }
            for c in message.get("tool_calls") or ()
        ],
        "finish_reason": choices[0].get("finish_reason"),
    }


def run_replay(args: argparse.Namespace) -> int:
    recording = Recording.load(find_recording(args.log))
    status, body = anyio.run(replay, recording, args.provider)
    out = sys.stdout.buffer
    if args.summary and 200 <= status < 300:
        out.write(orjson.dumps(summary(recording, body), option=orjson.OPT_INDENT_2) + b"\n")
    else:
        out.write(body)
    out.flush()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args, unknown = build_parser().parse_known_args(argv)
    if unknown:
        # The command's own usage, not the top-level one (which lists only the commands).
        args.command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        code: int = args.run(args)
    except (ConfigError, FileNotFoundError, TypeError, RecordingError) as exc:
        print(f"toolcall: error: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
