import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Sqlite from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openAIChatWire, startOpenAIChatServer } from "../support/fakeServers/openaiChat.js";
import type { FakeServer } from "../support/fakeServers/shared.js";
import { useTempDir } from "../support/tempDir.js";

/**
 * Issue L: SIGINT/SIGTERM to `agentloop run` while a `run_command` tool runs cancels the run —
 * `cancelled` in the ledger, a `cancelled` receipt — kills the tool's whole process group, and
 * exits 130/143. The real binary (compiled JS, plain node) in a child process.
 */

const BIN = fileURLToPath(new URL("../../bin/agentloop.mjs", import.meta.url));
const tmp = useTempDir("agentloop-signals-");

/** Alive and not a zombie (an exited child whose parent is gone may wait for init to reap it). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string; stdout: string }> {
  let stderr = "";
  let stdout = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr, stdout })));
}

/** The tool's shell records its pid and its background child's pid, then waits for the child. */
const HOLDING_SCRIPT = "sleep 300 & echo $! > child.pid; echo $$ > shell.pid; wait";

/** The same, but the child leaves the group (a session of its own) and records its own pid. */
const ESCAPING_SCRIPT = "setsid sh -c 'echo $$ > child.pid; exec sleep 300' & echo $$ > shell.pid; wait";

describe("agentloop run under a signal", () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await startOpenAIChatServer();
  });
  afterEach(async () => {
    await server.close();
  });

  async function interruptDuringTool(signal: "SIGINT" | "SIGTERM", script = HOLDING_SCRIPT) {
    const workspace = tmp.path("ws");
    mkdirSync(workspace);
    const db = tmp.path("ledger.db");
    server.enqueue(
      openAIChatWire.stream({
        calls: [{ id: "c1", name: "run_command", arguments: JSON.stringify({ argv: ["sh", "-c", script] }) }],
      }),
    );
    const child = spawn(
      process.execPath,
      [
        BIN,
        "run",
        "Run the long job.",
        "--provider",
        "openai-chat",
        "--base-url",
        `${server.origin}/v1`,
        "--workspace",
        workspace,
        "--db",
        db,
        "--json",
      ],
      { env: { ...process.env, OPENAI_API_KEY: "test-key" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    const done = exited(child);
    const pidOf = (file: string) => {
      const path = `${workspace}/${file}`;
      if (!existsSync(path)) return undefined;
      const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
      return Number.isNaN(pid) ? undefined : pid;
    };
    const shellPid = await waitFor(() => pidOf("shell.pid"), "the tool's shell to start");
    const sleepPid = await waitFor(() => pidOf("child.pid"), "the tool's background child");
    expect(isAlive(shellPid) && isAlive(sleepPid)).toBe(true);

    child.kill(signal);
    const { code, stdout, stderr } = await done;
    return { code, stdout, stderr, db, shellPid, sleepPid };
  }

  function ledgerOf(db: string) {
    const sqlite = new Sqlite(db, { readonly: true, fileMustExist: true });
    try {
      return {
        runs: sqlite.prepare("SELECT terminal_state, failure_code FROM agent_runs").all(),
        receipts: sqlite.prepare("SELECT tool_name, status FROM agent_execution_receipts").all(),
        lastEvent: sqlite
          .prepare("SELECT event_type FROM agent_run_events ORDER BY run_id, sequence DESC LIMIT 1")
          .get() as { event_type: string },
      };
    } finally {
      sqlite.close();
    }
  }

  it("SIGINT cancels the run, kills the tool's process group and exits 130", async () => {
    const { code, stdout, stderr, db, shellPid, sleepPid } = await interruptDuringTool("SIGINT");
    expect(code, stderr).toBe(130);
    expect(isAlive(shellPid)).toBe(false);
    expect(isAlive(sleepPid)).toBe(false);
    const ledger = ledgerOf(db);
    expect(ledger.runs).toEqual([{ terminal_state: "cancelled", failure_code: "cancelled_by_user" }]);
    expect(ledger.receipts).toEqual([{ tool_name: "run_command", status: "cancelled" }]);
    expect(ledger.lastEvent.event_type).toBe("terminal");
    expect(JSON.parse(stdout)).toMatchObject({ terminalState: "cancelled" });
    expect(stderr).toContain("SIGINT: cancelling the runs in flight");
  });

  it("SIGINT also ends a process that left the tool's process group with setsid", async () => {
    const { code, stderr, shellPid, sleepPid } = await interruptDuringTool("SIGINT", ESCAPING_SCRIPT);
    const survivors = [shellPid, sleepPid].filter(isAlive);
    for (const pid of survivors) process.kill(pid, "SIGKILL");
    expect(code, stderr).toBe(130);
    expect(survivors).toEqual([]);
  });

  it("SIGTERM does the same and exits 143", async () => {
    const { code, stderr, db, shellPid, sleepPid } = await interruptDuringTool("SIGTERM");
    expect(code, stderr).toBe(143);
    expect(isAlive(shellPid) || isAlive(sleepPid)).toBe(false);
    expect(ledgerOf(db).runs).toEqual([{ terminal_state: "cancelled", failure_code: "cancelled_by_user" }]);
  });
});
