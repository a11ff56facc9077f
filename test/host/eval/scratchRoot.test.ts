/**
 * Case workspaces of `agentloop eval` live under one directory per process
 * (`$TMPDIR/agentloop-eval-<pid>-<start time>/`): a SIGKILLed evaluation leaves that one directory,
 * and the next evaluation removes it because its owner is gone. Real `agentloop eval` processes
 * (the built package) with TMPDIR pointed at the test's directory.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ownScratchName, sweepAbandonedScratch } from "../../../src/host/eval/scratchRoot.js";
import { processStartTime } from "../../../src/services/processes/procfs.js";
import { useTempDir } from "../../support/tempDir.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const BIN = join(ROOT, "bin/agentloop.mjs");
const tmp = useTempDir("agentloop-scratch-");

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A case whose only tool call takes a minute: the evaluation is killed while it runs. */
const SLOW_CASE = {
  name: "slow",
  input: "Read the file.",
  workspace: { files: { "notes.txt": "kept until the case ends\n" } },
  tools: [{ name: "slow_read", kind: "observe", outcomes: [{ status: "ok", delayMs: 60_000, output: "late" }] }],
  model: [{ toolCalls: [{ id: "c1", name: "slow_read", arguments: {} }] }, { text: "done" }],
  expect: { terminalState: "completed", reason: "answered" },
};
const QUICK_CASE = {
  name: "quick",
  input: "Hello?",
  workspace: { files: { "a.txt": "a\n" } },
  model: [{ text: "Hi there.", finishReason: "stop" }],
  expect: { terminalState: "completed", reason: "answered" },
};

describe("eval case workspaces", () => {
  it("a SIGKILLed evaluation leaves one directory of its own, which the next evaluation removes", async () => {
    const scratch = tmp.path("tmp");
    mkdirSync(scratch);
    writeFileSync(tmp.path("slow.json"), JSON.stringify([SLOW_CASE]));
    writeFileSync(tmp.path("quick.json"), JSON.stringify([QUICK_CASE]));
    const env = { ...process.env, TMPDIR: scratch };
    const killed = spawn(process.execPath, [BIN, "eval", tmp.path("slow.json"), "--db", tmp.path("a.db")], {
      env,
      stdio: "ignore",
    });
    children.push(killed);
    const exited = new Promise((resolve) => killed.on("exit", resolve));
    const caseDir = () =>
      readdirSync(scratch, { recursive: true, encoding: "utf8" }).find((path) => path.endsWith("notes.txt"));
    for (let attempt = 0; attempt < 2400 && !caseDir(); attempt++) await sleep(25);
    expect(caseDir(), "the case's workspace was written").toBeDefined();
    killed.kill("SIGKILL");
    await exited;

    const left = readdirSync(scratch);
    expect(left).toEqual([expect.stringMatching(new RegExp(`^agentloop-eval-${killed.pid}-\\d+$`))]);
    expect(readdirSync(join(scratch, left[0]!))).toEqual([expect.stringMatching(/^agentloop-case-/)]);

    const next = spawnSync(process.execPath, [BIN, "eval", tmp.path("quick.json"), "--db", tmp.path("b.db")], {
      env,
      encoding: "utf8",
    });
    expect(next.status, next.stderr).toBe(0);
    expect(readdirSync(scratch)).toEqual([]);
  }, 120_000);

  it("keeps the directory of an evaluation that still runs", () => {
    const base = tmp.path("base");
    const own = join(base, ownScratchName());
    mkdirSync(own, { recursive: true });
    expect(sweepAbandonedScratch(base)).toEqual([]);
    expect(existsSync(own)).toBe(true);
  });

  it("removes the directory of a pid now running another process (its start time differs)", () => {
    const base = tmp.path("base");
    const start = Number(processStartTime("self"));
    const reused = join(base, `agentloop-eval-${process.pid}-${start + 1}`);
    mkdirSync(join(reused, "agentloop-case-x"), { recursive: true });
    expect(sweepAbandonedScratch(base)).toEqual([reused]);
    expect(existsSync(reused)).toBe(false);
  });
});
