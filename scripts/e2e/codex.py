"""Codex CLI end to end: ``codex exec`` headless against ``toolcall serve`` (Responses API) in
front of a scripted model that writes its shell call as raw markup.

    python scripts/e2e/codex.py            # every format
    python scripts/e2e/codex.py kimi       # one of: kimi, qwen3_coder, hermes, hy3, deepseek_v4,
                                           #   deepseek_v32, kimi_k3, gemma4, glm47, minimax_m3

For each format: the tool must have run (its file exists) and the final answer, which quotes
the tool's output, must be printed, and none of the model's markup; every upstream request
must have one leading system message. Exits non-zero on the first failure, printing what
Codex printed.
"""

from __future__ import annotations

import sys

from harness import MARK, MODELS, Result, npm_install, stack
from markup import FORMATS, MARKERS

CODEX = ("@openai/codex", "0.169.0")

CONFIG = """\
model = "{model}"
model_provider = "toolcall"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.toolcall]
name = "toolcall"
base_url = "{base_url}/v1"
wire_api = "responses"
env_key = "TOOLCALL_E2E_KEY"
stream_max_retries = 0
request_max_retries = 0
"""


def run(fmt: str) -> Result:
    binaries = npm_install(*CODEX)
    with stack(fmt) as s:
        codex_home = s.home / ".codex"
        codex_home.mkdir()
        (codex_home / "config.toml").write_text(
            CONFIG.format(model=MODELS[fmt], base_url=s.proxy_url)
        )
        argv = [
            str(binaries / "codex"),
            "exec",
            "--skip-git-repo-check",
            "Run the command the task needs, then tell me what it printed.",
        ]
        env = {"CODEX_HOME": str(codex_home), "TOOLCALL_E2E_KEY": "unused"}
        return s.run(argv, env)


def check(fmt: str, result: Result) -> list[str]:
    problems = []
    leaked = [marker for marker in MARKERS if marker in result.stdout]
    if leaked:
        problems.append(f"the client printed the model's markup: {leaked}")
    if result.returncode != 0:
        problems.append(f"codex exited {result.returncode}")
    if not result.tool_ran:
        problems.append("the shell command did not run (no proof.txt)")
    answers = [line for line in result.stdout.splitlines() if line.startswith("FINAL ANSWER:")]
    if not any(MARK in line for line in answers):
        problems.append("the final answer quoting the tool output was not printed")
    for request in result.requests:
        roles = [m["role"] for m in request["messages"]]
        if "system" in roles[1:]:
            problems.append(f"a system message after the first: {roles}")
    if len(result.requests) < 2:
        problems.append(f"expected two upstream turns, saw {len(result.requests)}")
    return problems


def main(argv: list[str]) -> int:
    failed = False
    for fmt in argv or FORMATS:
        result = run(fmt)
        problems = check(fmt, result)
        print(f"codex / {fmt}: {'ok' if not problems else 'FAILED'}", flush=True)
        if problems:
            failed = True
            print("  " + "\n  ".join(problems))
            print("--- stdout ---\n" + result.stdout[-4000:])
            print("--- stderr ---\n" + result.stderr[-6000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
