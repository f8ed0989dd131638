"""Claude Code end to end: ``claude -p`` headless against ``toolcall serve`` (Anthropic Messages
API) in front of a scripted model that writes its Bash call as raw markup.

    python scripts/e2e/claude_code.py                   # every case
    python scripts/e2e/claude_code.py kimi               # one of: kimi, qwen3_coder, hermes,
                                                         #   hy3, deepseek_v4, deepseek_v32,
                                                         #   kimi_k3, gemma4, glm47,
                                                         #   minimax_m3, native_bad_json

For each markup format: the tool must have run and the final answer quoting its output must be
printed, and none of the model's markup; every upstream request must have one leading system
message (Claude Code 2.1 sends a second one after the first user turn). ``native_bad_json``:
the model writes arguments that are not JSON; Claude Code must keep the turn and tell the
model so (what docs/anthropic.md describes).
"""

from __future__ import annotations

import sys

from harness import MARK, MODELS, Result, npm_install, stack
from markup import FORMATS as MARKUP_FORMATS
from markup import MARKERS

CLAUDE_CODE = ("@anthropic-ai/claude-code", "2.1.330")
CASES = (*MARKUP_FORMATS, "native_bad_json")


def run(case: str) -> Result:
    binaries = npm_install(*CLAUDE_CODE)
    model = MODELS.get(case, "scripted-native")
    with stack(case, {"TOOLCALL_ANTHROPIC_MODEL_MAP": f"*={model}"}) as s:
        argv = [
            str(binaries / "claude"),
            "-p",
            "Run the command the task needs, then tell me what it printed.",
            "--dangerously-skip-permissions",
        ]
        env = {
            "ANTHROPIC_BASE_URL": s.proxy_url,
            "ANTHROPIC_API_KEY": "unused",
            "IS_SANDBOX": "1",  # --dangerously-skip-permissions as root
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        return s.run(argv, env)


def check(case: str, result: Result) -> list[str]:
    problems = []
    leaked = [marker for marker in MARKERS if marker in result.stdout]
    if leaked:
        problems.append(f"the client printed the model's markup: {leaked}")
    if result.returncode != 0:
        problems.append(f"claude exited {result.returncode}")
    answers = [line for line in result.stdout.splitlines() if line.startswith("FINAL ANSWER:")]
    if case == "native_bad_json":
        if result.tool_ran:
            problems.append("a call with broken arguments ran")
        if not any("could not be parsed as JSON" in line for line in answers):
            problems.append("Claude Code did not tell the model its arguments were not JSON")
    else:
        if not result.tool_ran:
            problems.append("the shell command did not run (no proof.txt)")
        if not any(MARK in line for line in answers):
            problems.append("the final answer quoting the tool output was not printed")
    for request in result.requests:
        roles = [m["role"] for m in request["messages"]]
        if "system" in roles[1:]:
            problems.append(f"a system message after the first: {roles}")
    return problems


def main(argv: list[str]) -> int:
    failed = False
    for case in argv or CASES:
        result = run(case)
        problems = check(case, result)
        print(f"claude-code / {case}: {'ok' if not problems else 'FAILED'}", flush=True)
        if problems:
            failed = True
            print("  " + "\n  ".join(problems))
            print("--- stdout ---\n" + result.stdout[-4000:])
            print("--- stderr ---\n" + result.stderr[-6000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
