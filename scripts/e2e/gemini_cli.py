"""gemini-cli end to end: ``gemini -p`` headless against ``toolcall serve`` (Gemini API) in
front of a scripted model that writes its shell call as raw markup.

    python scripts/e2e/gemini_cli.py            # every case
    python scripts/e2e/gemini_cli.py kimi       # one of: kimi, qwen3_coder, hermes, hy3,
                                                #   deepseek_v4, deepseek_v32, kimi_k3,
                                                #   gemma4, glm47, minimax_m3, native_bad_json

gemini-cli runs with a temporary HOME whose ``settings.json`` selects ``gemini-api-key`` auth,
and ``GOOGLE_GEMINI_BASE_URL`` at the proxy; every Gemini model id it asks for (its main model
and the fixed ids of its side requests) is mapped to the scripted model. For each format: the
tool must have run (its file exists), the final answer quoting the tool's output must be
printed, the upstream must have seen its own call id come back with the tool result (never
gemini-cli's ``<name>__<id>`` form, which the front undoes where gemini-cli writes it), the
reasoning of a thinking model's call turn (Kimi K2's, DeepSeek's, Kimi K3's, GLM's, MiniMax's)
must have come back as ``reasoning_content`` (carried by the call's ``thoughtSignature``:
gemini-cli keeps no thoughts), every upstream request must have one leading system message,
and gemini-cli must have printed none of the model's markup. With native arguments that are
not JSON (``native_bad_json``), the call reaches gemini-cli as ``{"input": "<raw>"}`` and
gemini-cli keeps the turn: the tool does not run, and the model is told why. Exits non-zero
on a failure, printing what gemini-cli printed.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from harness import MARK, MODELS, Result, npm_install, stack
from markup import FORMATS as MARKUP_FORMATS
from markup import MARKERS, REASONING

GEMINI_CLI = ("@google/gemini-cli", "0.61.0")
FORMATS = (*MARKUP_FORMATS, "native_bad_json")
PROMPT = "Run the command the task needs, then tell me what it printed."


def settings(context_window: int = 131072) -> dict[str, Any]:
    """What an open model behind the proxy needs: API-key auth (the key is only passed on),
    compression at a fraction of the model's own window (gemini-cli assumes 1,048,576 tokens
    for a model it does not know), and nothing that calls Google."""
    return {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "model": {"compressionThreshold": round(context_window / 1_048_576 * 0.9, 3)},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
    }


def run(fmt: str) -> Result:
    binaries = npm_install(*GEMINI_CLI)
    model = MODELS.get(fmt, MODELS["native"])
    serve_env = {
        "TOOLCALL_GEMINI_MODEL_MAP": f"gemini-*={model}",
        "TOOLCALL_GEMINI_DEFAULT_MODEL": model,
    }
    with stack(fmt, serve_env) as s:
        gemini_home = s.home / ".gemini"
        gemini_home.mkdir()
        (gemini_home / "settings.json").write_text(json.dumps(settings(), indent=2))
        argv = [str(binaries / "gemini"), "--approval-mode", "yolo", "-p", PROMPT]
        env = {
            "GEMINI_API_KEY": "unused",
            "GOOGLE_GEMINI_BASE_URL": s.proxy_url,
            "GEMINI_CLI_NO_RELAUNCH": "true",
        }
        return s.run(argv, env)


def check(fmt: str, result: Result) -> list[str]:
    problems = []
    leaked = [marker for marker in MARKERS if marker in result.stdout]
    if leaked:
        problems.append(f"the client printed the model's markup: {leaked}")
    if result.returncode != 0:
        problems.append(f"gemini exited {result.returncode}")
    answers = [line for line in result.stdout.splitlines() if "FINAL ANSWER:" in line]
    if fmt == "native_bad_json":
        if result.tool_ran:
            problems.append("the tool ran with arguments that were not JSON")
        if not any("command" in line for line in answers):
            problems.append("the model was not told what was wrong with its call")
    else:
        if not result.tool_ran:
            problems.append("the shell command did not run (no proof.txt)")
        if not any(MARK in line for line in answers):
            problems.append("the final answer quoting the tool output was not printed")
    for request in result.requests:
        roles = [m["role"] for m in request["messages"]]
        if "system" in roles[1:]:
            problems.append(f"a system message after the first: {roles}")
    answered = [r for r in result.requests if r["messages"][-1]["role"] == "tool"]
    if not answered:
        problems.append(f"no upstream request carried the tool result ({len(result.requests)})")
    for request in answered:
        messages = request["messages"]
        call_ids = [c["id"] for m in messages for c in m.get("tool_calls", ())]
        result_ids = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
        if result_ids != call_ids:
            problems.append(f"tool results {result_ids} do not answer the calls {call_ids}")
        if fmt == "kimi" and call_ids != ["functions.run_shell_command:0"]:
            problems.append(f"Kimi's own call id did not come back: {call_ids}")
        reasoning = [m.get("reasoning_content") for m in messages if m.get("tool_calls")]
        if fmt == "kimi" and reasoning != ["I will run the command. "]:
            problems.append(f"Kimi's reasoning did not come back as it was: {reasoning}")
        said = REASONING.get(fmt)
        if said and not (len(reasoning) == 1 and (reasoning[0] or "").startswith(said)):
            problems.append(f"the call's reasoning did not come back: {reasoning}")
        if any(i.startswith("run_shell_command__") for i in call_ids):
            problems.append(f"gemini-cli's id prefix reached the upstream: {call_ids}")
    return problems


def main(argv: list[str]) -> int:
    failed = False
    for fmt in argv or FORMATS:
        result = run(fmt)
        problems = check(fmt, result)
        print(f"gemini-cli / {fmt}: {'ok' if not problems else 'FAILED'}", flush=True)
        if problems:
            failed = True
            print("  " + "\n  ".join(problems))
            print("--- stdout ---\n" + result.stdout[-4000:])
            print("--- stderr ---\n" + result.stderr[-6000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
