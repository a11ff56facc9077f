/**
 * A host process SIGKILLed while `run_command` runs leaves the command's processes running — its
 * process group, and what left the group (`setsid`, a double fork). The group is in the ledger
 * with its leader's start time and the call's marker, so `agentloop recover` (and start-up
 * recovery) ends every one of them, and says so. The host is a real child running the built
 * package (dist/), killed with SIGKILL.
 */
import { type ChildProcessByStdio, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Readable } from "node:stream";
import Sqlite from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { readStat } from "../../src/services/processes/procfs.js";
import { useTempDir } from "../support/tempDir.js";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/agentloop.mjs");
const tmp = useTempDir("agentloop-recover-procs-");

/** The command: a background child in its group, one in a session of its own, one double-forked; then it waits. */
const SCRIPT = [
  "sleep 300 & echo $! > child.pid",
  "setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' &",
  "setsid sh -c 'sh -c \"echo \\$\\$ > orphan.pid; exec sleep 300\" & exit 0' &",
  "echo $$ > shell.pid",
  "exec sleep 300",
].join("\n");
const PID_FILES = ["shell.pid", "child.pid", "escaped.pid", "orphan.pid"];

const DRIVER = `
import { AgentRuntime } from "./dist/index.js";
import { builtinTools } from "./dist/entries/tools.js";
import { scriptedProvider } from "./dist/entries/testing.js";
const [file, workspace, script] = process.argv.slice(-3);
const runtime = await AgentRuntime.make({ database: file });
runtime.startRun({
  runId: "driven",
  sessionId: "s",
  input: "Run the job.",
  tools: [builtinTools(workspace, { runCommand: { allowShell: true } }).get("run_command")],
  provider: scriptedProvider([
    { toolCalls: [{ id: "c1", name: "run_command", arguments: { argv: [script], shell: true } }] },
    { text: "done" },
  ]),
});
process.stdout.write("started\\n");
`;

type Driver = ChildProcessByStdio<null, Readable, Readable>;
const drivers: Driver[] = [];
const pids: number[] = [];
afterEach(() => {
  for (const child of drivers.splice(0)) child.kill("SIGKILL");
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone, as it should be.
    }
  }
});

function recordedGroups(db: string) {
  const sqlite = new Sqlite(db, { readonly: true });
  try {
    return sqlite.prepare("SELECT pgid, cgroup, ended_by, ended_how FROM agent_tool_processes").all() as Array<{
      pgid: number;
      cgroup: string | null;
      ended_by: string | null;
      ended_how: string | null;
    }>;
  } finally {
    sqlite.close();
  }
}

const running = (pid: number) => {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== "Z";
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(probe: () => boolean): Promise<boolean> {
  // Bounded (60 s): a loaded machine starts the host slowly; no assertion is about time.
  for (let attempt = 0; attempt < 2400 && !probe(); attempt++) await sleep(25);
  return probe();
}

/** Starts the host, waits until the command and its three children run, SIGKILLs the host. */
async function killHostMidCommand(): Promise<{ db: string; pids: number[] }> {
  const workspace = tmp.path("ws");
  mkdirSync(workspace);
  const db = tmp.path("ledger.db");
  const child = spawn(process.execPath, ["--input-type=module", "-e", DRIVER, db, workspace, SCRIPT], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  drivers.push(child);
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const pidOf = (file: string) => Number.parseInt(readFileSync(join(workspace, file), "utf8"), 10);
  const ready = await until(() =>
    PID_FILES.every((file) => existsSync(join(workspace, file)) && !Number.isNaN(pidOf(file))),
  );
  expect(ready, "the command's processes started").toBe(true);
  const started = PID_FILES.map(pidOf);
  pids.push(...started);
  child.kill("SIGKILL");
  await exited;
  return { db, pids: started };
}

describe("tool processes after the host was SIGKILLed", () => {
  it("agentloop recover ends the command's group and what left it, and names the group", async () => {
    const { db, pids: started } = await killHostMidCommand();
    await sleep(200);
    expect(started.filter(running)).toEqual(started);
    const recover = spawnSync(process.execPath, [BIN, "recover", "--db", db], { encoding: "utf8" });
    expect(recover.status, recover.stderr).toBe(0);
    expect(recover.stdout).toContain("closed driven (session s) as failed/interrupted; 1 dangling call(s) cancelled");
    expect(recover.stdout).toMatch(
      new RegExp(`ended process group ${started[0]} \\(run driven, call c1\\): \\d+ process\\(es\\) still running`),
    );
    expect(await until(() => !started.some(running))).toBe(true);
    // Where the command ran in a cgroup leaf of its own, recovery removed the leaf too.
    const recorded = recordedGroups(db);
    expect(recorded).toEqual([expect.objectContaining({ pgid: started[0], ended_by: "recovery", ended_how: "ended" })]);
    if (recorded[0]?.cgroup) expect(existsSync(recorded[0].cgroup)).toBe(false);
    // The group is marked: a second recovery has nothing to end.
    const again = spawnSync(process.execPath, [BIN, "recover", "--db", db, "--json"], { encoding: "utf8" });
    expect(JSON.parse(again.stdout)).toMatchObject({ recovered: [], processes: [] });
  }, 120_000);

  it("start-up recovery ends them too and reports them on the runtime", async () => {
    const { db, pids: started } = await killHostMidCommand();
    expect(started.filter(running)).toEqual(started);
    const runtime = await AgentRuntime.make({ database: db });
    try {
      expect(runtime.recovered.map((run) => run.runId)).toEqual(["driven"]);
      expect(runtime.strayProcesses).toEqual([
        expect.objectContaining({ runId: "driven", callId: "c1", pgid: started[0], outcome: "ended" }),
      ]);
      expect(await until(() => !started.some(running))).toBe(true);
    } finally {
      await runtime.dispose();
    }
  }, 120_000);
});
