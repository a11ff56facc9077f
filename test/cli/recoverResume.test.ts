/**
 * `agentloop recover --resume`, end to end with real processes: `agentloop run` is
 * SIGKILLed while its `run_command` tool (kind mutate) holds a shell open; `recover --resume`
 * then continues the run against the same (fake, wire-exact) OpenAI server. The call whose
 * outcome is unknown is not run again: it gets a `side_effect_unknown` receipt, the model is told
 * so, and the run ends once. A second `recover --resume` finds nothing to do.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Sqlite from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openAIChatWire, startOpenAIChatServer } from "../support/fakeServers/openaiChat.js";
import type { FakeServer } from "../support/fakeServers/shared.js";
import { useTempDir } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-resume-cli-");
const BIN = fileURLToPath(new URL("../../bin/agentloop.mjs", import.meta.url));
const ENV = { ...process.env, OPENAI_API_KEY: "test-key" };

function exited(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

async function waitForFile(path: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("agentloop recover --resume after a SIGKILLed agentloop run", () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await startOpenAIChatServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it("continues the run, reports the killed call as side_effect_unknown and ends it once", async () => {
    const workspace = tmp.path("ws");
    mkdirSync(workspace);
    const db = tmp.path("ledger.db");
    const flags = [
      "--provider",
      "openai-chat",
      "--base-url",
      `${server.origin}/v1`,
      "--workspace",
      workspace,
      "--db",
      db,
    ];
    server.enqueue(
      openAIChatWire.stream({
        calls: [
          {
            id: "c1",
            name: "run_command",
            arguments: JSON.stringify({ argv: ["sh", "-c", "echo $$ > started; sleep 300"] }),
          },
        ],
      }),
    );
    const first = spawn(process.execPath, [BIN, "run", "Run the long job.", ...flags, "--json"], {
      env: ENV,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const firstDone = exited(first);
    await waitForFile(`${workspace}/started`);
    first.kill("SIGKILL");
    await firstDone;
    // The tool's shell outlived its parent; it is the process a real crash would leave behind.
    process.kill(Number.parseInt(readFileSync(`${workspace}/started`, "utf8"), 10), "SIGKILL");

    server.enqueue(openAIChatWire.stream({ text: "I could not confirm whether the job ran; please check it." }));
    const resumed = await exited(
      spawn(process.execPath, [BIN, "recover", "--resume", ...flags], { env: ENV, stdio: ["ignore", "pipe", "pipe"] }),
    );
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    // The shell's `sleep` still ran in the recorded group: the resume ends it before the run continues.
    expect(resumed.stdout).toMatch(
      /^ended process group \d+ \(run run_\S+, call c1\): 1 process\(es\) still running after their process was gone\nresumed run_\S+ \(session cli-\S+\); it ended completed\/answered\n$/,
    );

    const ledger = new Sqlite(db, { readonly: true });
    try {
      const receipts = ledger
        .prepare("SELECT call_id, status, evidence_json FROM agent_execution_receipts")
        .all() as Array<{
        call_id: string;
        status: string;
        evidence_json: string;
      }>;
      expect(
        receipts.map((row) => [row.call_id, row.status, JSON.parse(row.evidence_json).side_effect_unknown]),
      ).toEqual([["c1", "cancelled", true]]);
      const types = ledger.prepare("SELECT event_type FROM agent_run_events ORDER BY sequence").pluck().all();
      expect(types.filter((type) => type === "terminal")).toHaveLength(1);
      expect(types.at(-1)).toBe("terminal");
    } finally {
      ledger.close();
    }
    // The model was told that the call's outcome is unknown (the tool result in its context).
    const context = JSON.stringify(server.requests.at(-1)?.body.messages);
    expect(context).toContain("whether it took effect is unknown");

    const again = await exited(
      spawn(process.execPath, [BIN, "recover", "--resume", ...flags], { env: ENV, stdio: ["ignore", "pipe", "pipe"] }),
    );
    expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 0, stdout: "no interrupted runs\n" });
  });
});
