"""Vercel AI SDK end to end: ``streamText`` with an executing tool and a step limit, through
``openai(model)`` from ``@ai-sdk/openai`` (the Responses API, ``store`` on), against
``toolcall serve`` in front of a scripted model that writes its shell call as raw markup.

    python scripts/e2e/vercel_ai.py            # every format
    python scripts/e2e/vercel_ai.py kimi       # one of: kimi, qwen3_coder, hermes, hy3,
                                               #   deepseek_v4, deepseek_v32, kimi_k3, gemma4,
                                               #   glm47, minimax_m3

With ``store`` on, the SDK sends the first turn's reasoning and text back as
``{"type": "item_reference", "id": …}``, which the proxy resolves from its response store (a
SQLite file of the run's own). The scripted model says a sentence before each call (in its
reasoning where it writes the call there, as Kimi K2, DeepSeek V3.2 and GLM-4.7 do; in the
answer otherwise, ``upstream.py --preamble``), and the thinking models reason first, so every
format's second turn has references to resolve. For each format: the tool must have run (its
file exists), the final answer quoting the tool's output must be printed, the SDK's second
request must have sent item references, and the upstream's second turn must have got the
first turn's reasoning and text back from them, before the call and its output; the SDK
script must have printed none of the model's markup. Exits
non-zero on a failure, printing what the SDK script printed.

``ai`` 6 and ``@ai-sdk/openai`` 3 are the newest majors that run on Node 20 (``ai`` 7 needs
Node 22).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from harness import MARK, MODELS, Result, npm_install_all, stack
from markup import CALLS_IN_REASONING, FORMATS, MARKERS, REASONING

PACKAGES = ["ai@6.0.326", "@ai-sdk/openai@3.0.141", "zod@4.6.7"]
PREAMBLE = "I will run the command.\n"
PROMPT = "Run the command the task needs, then tell me what it printed."

#: The SDK script: a tool loop of at most four steps; every request body the SDK sends is
#: written to ``requests.jsonl``, and the answer's text is printed at the end.
SCRIPT = """\
import { appendFileSync } from "node:fs";
import { execSync } from "node:child_process";
import { streamText, tool, stepCountIs } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";

const openai = createOpenAI({
  baseURL: process.env.TOOLCALL_BASE_URL,
  apiKey: "unused",
  fetch: async (url, init) => {
    appendFileSync("requests.jsonl", (init?.body ?? "{}") + "\\n");
    return fetch(url, init);
  },
});

const result = streamText({
  model: openai(process.env.TOOLCALL_MODEL),
  tools: {
    shell: tool({
      description: "Run a shell command and return what it printed",
      inputSchema: z.object({ command: z.string() }),
      execute: async ({ command }) => execSync(command, { encoding: "utf8" }),
    }),
  },
  stopWhen: stepCountIs(4),
  prompt: process.env.TOOLCALL_PROMPT,
});
for await (const part of result.fullStream) {
  if (part.type === "error") {
    console.error("stream error:", part.error);
    process.exitCode = 1;
  }
}
console.log((await result.text).trim());
console.log(`steps: ${(await result.steps).length}`);
"""


def run(fmt: str) -> tuple[Result, list[dict[str, Any]]]:
    binaries = npm_install_all("vercel-ai-" + "-".join(PACKAGES).replace("/", "_"), PACKAGES)
    modules = binaries.parent
    store_dir = Path(tempfile.mkdtemp(prefix="toolcall-e2e-store-"))
    serve_env = {"TOOLCALL_RESPONSES_STORE": f"sqlite:{store_dir / 'responses.sqlite3'}"}
    try:
        with stack(fmt, serve_env, upstream_args=["--preamble", PREAMBLE]) as s:
            (s.workdir / "node_modules").symlink_to(modules)
            (s.workdir / "run.mjs").write_text(SCRIPT)
            env = {
                "TOOLCALL_BASE_URL": s.proxy_url + "/v1",
                "TOOLCALL_MODEL": MODELS[fmt],
                "TOOLCALL_PROMPT": PROMPT,
            }
            result = s.run(["node", "run.mjs"], env, timeout=120)
            sent = s.workdir / "requests.jsonl"
            client_requests = (
                [json.loads(line) for line in sent.read_text().splitlines()]
                if sent.is_file()
                else []
            )
            return result, client_requests
    finally:
        shutil.rmtree(store_dir, ignore_errors=True)


def check(fmt: str, result: Result, client_requests: list[dict[str, Any]]) -> list[str]:
    problems = []
    leaked = [marker for marker in MARKERS if marker in result.stdout]
    if leaked:
        problems.append(f"the client printed the model's markup: {leaked}")
    if result.returncode != 0:
        problems.append(f"the SDK script exited {result.returncode}")
    if not result.tool_ran:
        problems.append("the shell command did not run (no proof.txt)")
    if not any(
        line.startswith("FINAL ANSWER:") and MARK in line for line in result.stdout.splitlines()
    ):
        problems.append("the final answer quoting the tool output was not printed")
    if len(client_requests) < 2:
        problems.append(f"expected two SDK requests, saw {len(client_requests)}")
    else:
        second = client_requests[1]
        references = [i for i in second.get("input", []) if i.get("type") == "item_reference"]
        if not references:
            problems.append(
                f"the SDK's second request sent no item_reference: {second.get('input')}"
            )
        if second.get("store") is False:
            problems.append("the SDK turned store off")
    if len(result.requests) < 2:
        problems.append(f"expected two upstream turns, saw {len(result.requests)}")
    else:
        messages = result.requests[1]["messages"]
        roles = [m["role"] for m in messages]
        assistant: dict[str, Any] = next((m for m in messages if m["role"] == "assistant"), {})
        if roles[-2:] != ["assistant", "tool"] or not assistant.get("tool_calls"):
            problems.append(f"the second turn lacks the call and its output: {roles}")
        reasoning = assistant.get("reasoning_content") or ""
        if fmt in REASONING and not reasoning.startswith(REASONING[fmt]):
            problems.append(f"the first turn's reasoning did not come back: {assistant}")
        text = assistant.get("content") or ""
        if fmt not in CALLS_IN_REASONING and not text.lstrip().startswith(PREAMBLE.strip()):
            problems.append(f"the first turn's text did not come back: {assistant}")
    return problems


def main(argv: list[str]) -> int:
    failed = False
    for fmt in argv or FORMATS:
        result, client_requests = run(fmt)
        problems = check(fmt, result, client_requests)
        print(f"vercel ai / {fmt}: {'ok' if not problems else 'FAILED'}", flush=True)
        if problems:
            failed = True
            print("  " + "\n  ".join(problems))
            print("--- stdout ---\n" + result.stdout[-4000:])
            print("--- stderr ---\n" + result.stderr[-6000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
