import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JsonValue } from "../../../../src/domain/index.js";
import { availableContainment, SCOPE_ENV } from "../../../../src/services/processes/commandScope.js";
import { scriptedProvider } from "../../../../src/services/providers/scripted.js";
import { type RunCommandOptions, runCommandTool } from "../../../../src/services/tools/builtin/runCommand.js";
import type { ToolResult } from "../../../../src/services/tools/Tool.js";
import { executeTool } from "../../../support/executeTool.js";
import { callStep, finish, textStep, useRuntimeHarness } from "../../../support/runtimeHarness.js";
import { useTempDir } from "../../../support/tempDir.js";

/**
 * Issue H: `run_command` runs argv (no shell unless allowed) inside the workspace, reports exit
 * code and output hashes that match the real output, caps the excerpt, and kills the whole
 * process group on timeout and on run cancellation.
 */

const tmp = useTempDir("agentloop-runcmd-");
const harness = useRuntimeHarness("agentloop-runcmd-rt-");
const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const NODE = process.execPath;

let ws: string;
beforeEach(() => {
  ws = tmp.path("ws");
  mkdirSync(ws);
});

/** Every pid a test learned about; killed after the test whatever happened. */
const spawned = new Set<number>();
afterEach(() => {
  for (const pid of spawned) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  spawned.clear();
});

function run(args: Record<string, JsonValue>, options: RunCommandOptions = {}, workspace = ws): Promise<ToolResult> {
  const tool = runCommandTool(workspace, options);
  return executeTool(tool, args);
}

const outputOf = (result: ToolResult) =>
  result.output as { exitCode?: number | null; stdout: string; stderr: string; truncated: boolean; error?: string };
const evidenceOf = (result: ToolResult) => result.evidence as Record<string, JsonValue>;

/**
 * A node script that starts a child (not detached: same process group) sleeping forever, writes
 * both pids to `pids.json` (atomically), then sleeps itself — or exits at once when `exit` is set.
 */
function writeFamilyScript(workspace: string, options: { exit?: boolean } = {}): void {
  writeFileSync(
    join(workspace, "family.mjs"),
    `import { spawn } from "node:child_process";
import { renameSync, writeFileSync } from "node:fs";
const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: false, stdio: "ignore" });
writeFileSync("pids.tmp", JSON.stringify({ parent: process.pid, grandchild: child.pid }));
renameSync("pids.tmp", "pids.json");
${options.exit ? "child.unref();\nprocess.exit(0);" : "setInterval(() => {}, 1000);"}
`,
  );
}

/**
 * A node script whose child inherits its stdout and stderr and sleeps forever (in the same process
 * group, or in a session of its own), while the script itself prints and exits at once.
 */
function writeHolderScript(workspace: string, options: { ownSession: boolean }): void {
  writeFileSync(
    join(workspace, "holder.mjs"),
    `import { spawn } from "node:child_process";
import { renameSync, writeFileSync } from "node:fs";
const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: ${options.ownSession}, stdio: ["ignore", "inherit", "inherit"] });
writeFileSync("pids.tmp", JSON.stringify({ parent: process.pid, grandchild: child.pid }));
renameSync("pids.tmp", "pids.json");
child.unref();
console.log("leader done");
process.exit(0);
`,
  );
}

function readPids(workspace: string): number[] {
  const pids = JSON.parse(readFileSync(join(workspace, "pids.json"), "utf8")) as { parent: number; grandchild: number };
  spawned.add(pids.parent);
  spawned.add(pids.grandchild);
  return [pids.parent, pids.grandchild];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether a process has ended. `kill(pid, 0)` throws ESRCH once it is reaped; a killed grandchild
 * is re-parented to init, which may take a moment to reap it — until then it is a zombie (state Z)
 * that runs nothing, so it counts as gone.
 */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** Polls (bounded) until every pid has ended; returns the ones still alive. */
async function survivors(pids: ReadonlyArray<number>): Promise<number[]> {
  for (let attempt = 0; attempt < 400; attempt++) {
    if (pids.every(isGone)) return [];
    await sleep(25);
  }
  return pids.filter((pid) => !isGone(pid));
}

async function waitForFile(path: string): Promise<boolean> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (existsSync(path)) return true;
    await sleep(25);
  }
  return false;
}

describe("run_command: argv, not a shell string", () => {
  it("refuses shell: true when the tool does not allow it, running nothing", async () => {
    const result = await run({ argv: [NODE, "-e", "require('fs').writeFileSync('ran', 'x')"], shell: true });
    expect(result.status).toBe("error");
    expect(outputOf(result).error).toMatch(/shell commands are not allowed/);
    expect(existsSync(join(ws, "ran"))).toBe(false);
  });

  it("passes shell syntax in an argument literally instead of interpreting it", async () => {
    const hostile = "$(touch pwned1); touch pwned2 && `touch pwned3`";
    const result = await run({ argv: [NODE, "-e", "process.stdout.write(process.argv[1])", hostile] });
    expect(result.status).toBe("ok");
    expect(outputOf(result).stdout).toBe(hostile);
    expect(["pwned1", "pwned2", "pwned3"].filter((file) => existsSync(join(ws, file)))).toEqual([]);
  });

  it("runs a shell command when the tool allows shell and the call asks for it", async () => {
    const result = await run({ argv: ["echo $((40 + 2))"], shell: true }, { allowShell: true });
    expect(result.status).toBe("ok");
    expect(outputOf(result).stdout).toBe("42\n");
  });

  it("returns an error result naming a program that cannot be started", async () => {
    const result = await run({ argv: ["agentloop-no-such-program"] });
    expect(result.status).toBe("error");
    expect(outputOf(result).error).toMatch(/could not start agentloop-no-such-program/);
  });
});

describe("run_command: working directory", () => {
  it("runs in the workspace by default", async () => {
    const result = await run({ argv: [NODE, "-e", "process.stdout.write(process.cwd())"] });
    expect(outputOf(result).stdout).toBe(realpathSync(ws));
  });

  it("runs in a subfolder of the workspace given as cwd", async () => {
    mkdirSync(join(ws, "sub"));
    const result = await run({ argv: [NODE, "-e", "process.stdout.write(process.cwd())"], cwd: "sub" });
    expect(result.status).toBe("ok");
    expect(outputOf(result).stdout).toBe(realpathSync(join(ws, "sub")));
  });

  it.each([
    { name: "a parent-relative cwd", cwd: () => ".." },
    { name: "an absolute cwd outside", cwd: () => tmp.dir() },
    { name: "a cwd through a symlink to a folder outside", cwd: () => "out-link" },
  ])("refuses $name without running anything", async ({ cwd }) => {
    symlinkSync(tmp.dir(), join(ws, "out-link"));
    const result = await run({ argv: [NODE, "-e", "require('fs').writeFileSync('ran', 'x')"], cwd: cwd() });
    expect(result.status).toBe("error");
    expect(outputOf(result).error).toMatch(/outside the workspace/);
    expect(existsSync(join(tmp.dir(), "ran"))).toBe(false);
    expect(existsSync(join(ws, "ran"))).toBe(false);
  });
});

describe("run_command: exit code and output evidence", () => {
  it("is ok with exit_code 0 when the program exits 0", async () => {
    const result = await run({ argv: [NODE, "-e", "process.exit(0)"] });
    expect(result.status).toBe("ok");
    expect(evidenceOf(result)).toMatchObject({ exit_code: 0, timed_out: false, signal: null });
  });

  it("is an error carrying the exit code when the program exits non-zero", async () => {
    const result = await run({ argv: [NODE, "-e", "process.exit(3)"] });
    expect(result.status).toBe("error");
    expect(outputOf(result).exitCode).toBe(3);
    expect(evidenceOf(result)).toMatchObject({ exit_code: 3, timed_out: false });
  });

  it("reports stdout and stderr hashes and sizes that match the real output", async () => {
    const out = "1 passed — ✓\n";
    const err = "warning: slow test\n";
    writeFileSync(
      join(ws, "print.mjs"),
      `process.stdout.write(${JSON.stringify(out)}); process.stderr.write(${JSON.stringify(err)});\n`,
    );
    const result = await run({ argv: [NODE, "print.mjs"] });
    expect(result.status).toBe("ok");
    expect(outputOf(result)).toMatchObject({ stdout: out, stderr: err, truncated: false });
    expect(evidenceOf(result)).toMatchObject({
      stdout_sha256: sha256(out),
      stderr_sha256: sha256(err),
      stdout_bytes: Buffer.byteLength(out),
      stderr_bytes: Buffer.byteLength(err),
    });
  });

  it("caps the output excerpt while the hash and byte count cover the whole output", async () => {
    const mebibyte = 1024 * 1024;
    const result = await run(
      { argv: [NODE, "-e", `process.stdout.write("a".repeat(${mebibyte}))`] },
      { outputCapBytes: 4096 },
    );
    const output = outputOf(result);
    expect(result.status).toBe("ok");
    expect(Buffer.byteLength(output.stdout)).toBeLessThanOrEqual(4096);
    expect(output.truncated).toBe(true);
    expect(evidenceOf(result)).toMatchObject({ stdout_bytes: mebibyte, stdout_sha256: sha256("a".repeat(mebibyte)) });
  });
});

describe("run_command: no process outlives the call", () => {
  it("kills the whole process group on timeout and reports timed_out", async () => {
    writeFamilyScript(ws);
    const result = await run({ argv: [NODE, "family.mjs"], timeoutMs: 4000 });
    expect(result.status).toBe("error");
    expect(evidenceOf(result)).toMatchObject({ timed_out: true });
    expect(outputOf(result).error).toMatch(/timed out/);
    expect(existsSync(join(ws, "pids.json"))).toBe(true);
    expect(await survivors(readPids(ws))).toEqual([]);
  });

  it("kills a child the program left behind when it exits", async () => {
    writeFamilyScript(ws, { exit: true });
    const result = await run({ argv: [NODE, "family.mjs"] });
    expect(result.status).toBe("ok");
    expect(await survivors(readPids(ws))).toEqual([]);
  });

  it("returns when the program exits although a child it left behind holds its output open", async () => {
    writeHolderScript(ws, { ownSession: false });
    const result = await run({ argv: [NODE, "holder.mjs"], timeoutMs: 60_000 });
    expect(result.status).toBe("ok");
    expect(outputOf(result).stdout).toContain("leader done");
    expect(evidenceOf(result)).toMatchObject({ timed_out: false, exit_code: 0 });
    expect(await survivors(readPids(ws))).toEqual([]);
  }, 20_000);

  it("returns when the program exits although a process outside its group holds its output open", async () => {
    writeHolderScript(ws, { ownSession: true });
    const result = await run({ argv: [NODE, "holder.mjs"], timeoutMs: 60_000 });
    expect(result.status).toBe("ok");
    expect(outputOf(result).stdout).toContain("leader done");
    expect(evidenceOf(result)).toMatchObject({ timed_out: false, exit_code: 0 });
    expect(await survivors(readPids(ws))).toEqual([]);
  }, 20_000);

  it("kills the whole process group when the run is cancelled mid-call", async () => {
    const workspace = harness.path("ws");
    mkdirSync(workspace);
    writeFamilyScript(workspace);
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Run the family script.",
      provider: scriptedProvider([callStep("c1", "run_command", { argv: [NODE, "family.mjs"] }), textStep("never")]),
      tools: [runCommandTool(workspace)],
    });
    for await (const event of handle.events) {
      if (event.type === "tool_started") {
        // Cancel once the processes exist, so there is a group to kill.
        await waitForFile(join(workspace, "pids.json"));
        handle.cancel();
      }
    }
    const { result, receipts } = await finish(runtime, handle);
    expect(result.terminalState).toBe("cancelled");
    expect(receipts.map(({ toolName, status, reason }) => ({ toolName, status, reason }))).toEqual([
      { toolName: "run_command", status: "cancelled", reason: "cancelled_by_user" },
    ]);
    expect(await survivors(readPids(workspace))).toEqual([]);
  });
});

/**
 * A program whose children leave its process group: `setsid` (a session of its own) and a double
 * fork under `setsid` (the middle process exits, the grandchild is re-parented to init). Each
 * escaped process writes its own pid once it runs; the program then waits, or exits at once.
 */
const ESCAPE_SCRIPT = [
  "setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' &",
  "setsid sh -c 'sh -c \"echo \\$\\$ > orphan.tmp; mv orphan.tmp orphan.pid; exec sleep 300\" & exit 0' &",
  "while [ ! -s escaped.pid ] || [ ! -s orphan.pid ]; do sleep 0.05; done",
].join("\n");

function escapedPids(workspace: string): number[] {
  const pids = ["escaped.pid", "orphan.pid"].map((file) =>
    Number.parseInt(readFileSync(join(workspace, file), "utf8"), 10),
  );
  for (const pid of pids) spawned.add(pid);
  return pids;
}

/** The containments this host offers (a cgroup v2 leaf needs a writable cgroup; the marker needs /proc). */
const CONTAINMENTS = (["cgroup", "marker"] as const).filter(
  (mode) => mode === "marker" || availableContainment() === "cgroup",
);

describe.each(CONTAINMENTS)("run_command: processes that leave the group (%s)", (containment) => {
  const options: RunCommandOptions = { allowShell: true, containment };

  it("ends them when the call times out", async () => {
    const result = await run({ argv: [`${ESCAPE_SCRIPT}\nsleep 300`], shell: true, timeoutMs: 3000 }, options);
    expect(await survivors(escapedPids(ws))).toEqual([]);
    expect(evidenceOf(result)).toMatchObject({ timed_out: true, process_tracking: containment });
  }, 20_000);

  it("ends them when the program exits", async () => {
    const result = await run({ argv: [ESCAPE_SCRIPT], shell: true, timeoutMs: 60_000 }, options);
    expect(result.status).toBe("ok");
    expect(await survivors(escapedPids(ws))).toEqual([]);
  }, 20_000);

  it("ends them when the run is cancelled mid-call", async () => {
    const workspace = harness.path("ws");
    mkdirSync(workspace);
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s1",
      input: "Run the job that detaches.",
      provider: scriptedProvider([
        callStep("c1", "run_command", { argv: [`${ESCAPE_SCRIPT}\nsleep 300`], shell: true }),
        textStep("never"),
      ]),
      tools: [runCommandTool(workspace, options)],
    });
    for await (const event of handle.events) {
      if (event.type === "tool_started") {
        await waitForFile(join(workspace, "orphan.pid"));
        await waitForFile(join(workspace, "escaped.pid"));
        handle.cancel();
      }
    }
    const { result } = await finish(runtime, handle);
    expect(result.terminalState).toBe("cancelled");
    expect(await survivors(escapedPids(workspace))).toEqual([]);
  }, 20_000);
});

describe("run_command: child environment", () => {
  const printEnv = [NODE, "-e", "process.stdout.write(JSON.stringify(process.env))"];
  const envOf = (result: ToolResult) => JSON.parse(outputOf(result).stdout) as Record<string, string>;
  const saved: Record<string, string | undefined> = {};
  const setEnv = (name: string, value: string) => {
    if (!(name in saved)) saved[name] = process.env[name];
    process.env[name] = value;
  };
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
      delete saved[name];
    }
  });

  it("does not pass this process's secrets to the child, only a minimal environment", async () => {
    setEnv("OPENAI_API_KEY", "sk-test-secret-should-not-leak");
    setEnv("AGENTLOOP_TEST_OTHER", "x");
    const env = envOf(await run({ argv: printEnv }));
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.AGENTLOOP_TEST_OTHER).toBeUndefined();
    expect(env.PATH).toBe(process.env.PATH);
    for (const name of Object.keys(env)) {
      expect(["PATH", "HOME", "LANG", "TMPDIR", "TMP", "TEMP", SCOPE_ENV]).toContain(name);
    }
    // The one variable added is the call's process marker: a random id, not a value of this process.
    expect(env[SCOPE_ENV]).toMatch(/^call-[0-9a-f-]{36}$/);
  });

  it("passes variables the options allow and sets the ones they give", async () => {
    setEnv("AGENTLOOP_TEST_ALLOWED", "yes");
    setEnv("AGENTLOOP_TEST_OTHER", "no");
    const env = envOf(
      await run({ argv: printEnv }, { env: { allow: ["AGENTLOOP_TEST_ALLOWED"], set: { FIXED: "1" } } }),
    );
    expect(env.AGENTLOOP_TEST_ALLOWED).toBe("yes");
    expect(env.FIXED).toBe("1");
    expect(env.AGENTLOOP_TEST_OTHER).toBeUndefined();
  });
});
