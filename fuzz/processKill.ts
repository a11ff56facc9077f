/**
 * `npx tsx fuzz/processKill.ts [--kill-points N] [--trials N] [--eval-kills N] [--seed N] [--json]`
 * (after `npm run build`): what killed hosts and ended calls leave running, before and after.
 *
 * 1. calls: `run_command` calls whose program starts children that leave its process group
 *    (`setsid`, a double fork under `setsid`), ended by timeout, by cancel and by the program's
 *    exit, under each tracking the host offers and under `group` (the process group only: what
 *    run_command did before). Survivors: processes with the call's workspace as their cwd.
 * 2. kill points: a host (the built package) drives a run of three such calls and is SIGKILLed at
 *    a random moment; survivors are counted after the kill, then after recovery (`agentloop
 *    recover` or start-up recovery, alternately).
 * 3. eval kills: `agentloop eval` SIGKILLed mid-case; case workspaces left directly in TMPDIR,
 *    left in a directory of their own, and left after the next `agentloop eval`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { availableContainment } from "../src/services/processes/commandScope.js";
import { listProcesses } from "../src/services/processes/procfs.js";

const ROOT = resolve(import.meta.dirname, "..");
const BIN = join(ROOT, "bin/agentloop.mjs");

const { values } = parseArgs({
  options: {
    "kill-points": { type: "string", default: "60" },
    trials: { type: "string", default: "5" },
    "eval-kills": { type: "string", default: "10" },
    seed: { type: "string", default: "33" },
    json: { type: "boolean", default: false },
  },
});

let state = Number(values.seed);
const random = () => {
  // mulberry32: the same kill moments for the same seed.
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Processes (not zombies) whose working directory is `dir` or below it. */
function processesIn(dir: string): number[] {
  return listProcesses()
    .filter((stat) => stat.state !== "Z")
    .filter((stat) => {
      try {
        const cwd = readlinkSync(`/proc/${stat.pid}/cwd`);
        return cwd === dir || cwd.startsWith(`${dir}/`);
      } catch {
        return false;
      }
    })
    .map((stat) => stat.pid);
}

async function settle(dir: string): Promise<number[]> {
  for (let attempt = 0; attempt < 80; attempt++) {
    if (processesIn(dir).length === 0) return [];
    await sleep(25);
  }
  return processesIn(dir);
}

function killAll(pids: ReadonlyArray<number>) {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
}

/** A program that starts three children outside its group (and one inside), then waits or exits. */
const escaping = (tail: string) =>
  [
    "sleep 300 &",
    "setsid sleep 300 &",
    "setsid sh -c 'sleep 300 & exit 0' &",
    "sleep 0.3", // the children exist before the call ends
    tail,
  ].join("\n");

// --- 1. calls -----------------------------------------------------------------------------------

const DRIVE_CALL = `
import { AgentRuntime } from "./dist/index.js";
import { builtinTools } from "./dist/entries/tools.js";
import { scriptedProvider } from "./dist/entries/testing.js";
const [file, workspace, containment, ending, script] = process.argv.slice(-5);
const runtime = await AgentRuntime.make({ database: file });
const tool = builtinTools(workspace, { runCommand: { allowShell: true, containment } }).get("run_command");
const handle = runtime.startRun({
  sessionId: "s",
  input: "Run it.",
  tools: [tool],
  provider: scriptedProvider([
    { toolCalls: [{ id: "c1", name: "run_command", arguments: { argv: [script], shell: true, timeoutMs: ending === "timeout" ? 1500 : 60000 } }] },
    { text: "done" },
  ]),
});
if (ending === "cancel") setTimeout(() => handle.actor.send({ type: "CANCEL" }), 1500);
await handle.result;
await runtime.dispose();
`;

async function callTrial(containment: string, ending: string) {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-pk-call-"));
  const workspace = join(dir, "ws");
  mkdirSync(workspace);
  const script = escaping(ending === "exit" ? "exit 0" : "sleep 300");
  const result = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", DRIVE_CALL, join(dir, "l.db"), workspace, containment, ending, script],
    { cwd: ROOT, encoding: "utf8", timeout: 60_000 },
  );
  if (result.status !== 0) throw new Error(`call trial failed: ${result.stderr}`);
  const survivors = await settle(workspace);
  killAll(survivors);
  rmSync(dir, { recursive: true, force: true });
  return survivors.length;
}

// --- 2. kill points -----------------------------------------------------------------------------

const DRIVE_RUN = `
import { AgentRuntime } from "./dist/index.js";
import { builtinTools } from "./dist/entries/tools.js";
import { scriptedProvider } from "./dist/entries/testing.js";
const [file, workspace, script] = process.argv.slice(-3);
const runtime = await AgentRuntime.make({ database: file });
const tool = builtinTools(workspace, { runCommand: { allowShell: true } }).get("run_command");
const call = (id) => ({ toolCalls: [{ id, name: "run_command", arguments: { argv: [script], shell: true } }] });
runtime.startRun({
  sessionId: "s",
  input: "Run it three times.",
  tools: [tool],
  provider: scriptedProvider([call("c1"), call("c2"), call("c3"), { text: "done" }]),
});
`;

interface KillPoint {
  readonly before: number;
  readonly after: number;
  readonly ended: number;
}

async function killPoint(index: number): Promise<KillPoint> {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-pk-kill-"));
  const workspace = join(dir, "ws");
  mkdirSync(workspace);
  const db = join(dir, "l.db");
  const script = escaping("sleep 0.4; exit 0");
  const host = spawn(process.execPath, ["--input-type=module", "-e", DRIVE_RUN, db, workspace, script], {
    cwd: ROOT,
    stdio: "ignore",
  });
  const exited = new Promise((done) => host.on("exit", done));
  // The kill lands anywhere from the first command's start to after the run's end.
  for (let attempt = 0; attempt < 800 && processesIn(workspace).length === 0; attempt++) await sleep(10);
  await sleep(Math.floor(random() * 2500));
  host.kill("SIGKILL");
  await exited;
  await sleep(100);
  const before = processesIn(workspace).length;
  let ended = 0;
  if (index % 2 === 0) {
    const recover = spawnSync(process.execPath, [BIN, "recover", "--db", db, "--json"], { encoding: "utf8" });
    if (recover.status === 0) {
      ended = (JSON.parse(recover.stdout) as { processes?: Array<{ outcome: string }> }).processes?.filter(
        (stray) => stray.outcome === "ended",
      ).length as number;
    }
  } else {
    const startUp = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { AgentRuntime } from "./dist/index.js";
         const runtime = await AgentRuntime.make({ database: process.argv.at(-1) });
         process.stdout.write(String(runtime.strayProcesses.filter((s) => s.outcome === "ended").length));
         await runtime.dispose();`,
        db,
      ],
      { cwd: ROOT, encoding: "utf8" },
    );
    ended = Number(startUp.stdout) || 0;
  }
  const survivors = await settle(workspace);
  killAll(survivors);
  killAll(processesIn(workspace));
  rmSync(dir, { recursive: true, force: true });
  return { before, after: survivors.length, ended };
}

// --- 3. eval kills ------------------------------------------------------------------------------

async function evalKill() {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-pk-eval-"));
  const scratch = join(dir, "tmp");
  mkdirSync(scratch);
  const cases = Array.from({ length: 6 }, (_, index) => ({
    name: `case-${index}`,
    input: "Read it.",
    workspace: { files: { "a.txt": "a\n" } },
    tools: [{ name: "slow", kind: "observe", outcomes: [{ status: "ok", delayMs: 1000, output: "x" }] }],
    model: [{ toolCalls: [{ id: "c1", name: "slow", arguments: {} }] }, { text: "done" }],
    expect: { terminalState: "completed", reason: "answered" },
  }));
  writeFileSync(join(dir, "cases.json"), JSON.stringify(cases));
  const env = { ...process.env, TMPDIR: scratch };
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, "eval", join(dir, "cases.json"), "--db", join(dir, "a.db")],
    {
      env,
      stdio: "ignore",
    },
  );
  const exited = new Promise((done) => child.on("exit", done));
  const started = () =>
    readdirSync(scratch, { recursive: true, encoding: "utf8" }).some((path) => path.endsWith("a.txt"));
  for (let attempt = 0; attempt < 6000 && !started(); attempt++) await sleep(10);
  await sleep(Math.floor(random() * 5000));
  child.kill("SIGKILL");
  await exited;
  const top = readdirSync(scratch);
  const looseCases = top.filter((name) => name.startsWith("agentloop-case-")).length;
  const evalDirs = top.filter((name) => name.startsWith("agentloop-eval-"));
  const heldCases = evalDirs.flatMap((name) => readdirSync(join(scratch, name))).length;
  const quick = [
    { name: "q", input: "Hi?", model: [{ text: "Hi." }], expect: { terminalState: "completed", reason: "answered" } },
  ];
  writeFileSync(join(dir, "quick.json"), JSON.stringify(quick));
  spawnSync(process.execPath, [BIN, "eval", join(dir, "quick.json"), "--db", join(dir, "b.db")], { env });
  const after = readdirSync(scratch).length;
  rmSync(dir, { recursive: true, force: true });
  return { looseCases, evalDirs: evalDirs.length, heldCases, after };
}

// --- main ---------------------------------------------------------------------------------------

const trials = Number(values.trials);
const calls: Record<string, Record<string, { trials: number; survivors: number }>> = {};
for (const containment of ["group", "marker", ...(availableContainment() === "cgroup" ? ["cgroup"] : [])]) {
  calls[containment] = {};
  for (const ending of ["timeout", "cancel", "exit"]) {
    let survivors = 0;
    for (let trial = 0; trial < trials; trial++) survivors += await callTrial(containment, ending);
    calls[containment]![ending] = { trials, survivors };
    if (!values.json)
      process.stderr.write(`calls ${containment}/${ending}: ${survivors} survivors in ${trials} trials\n`);
  }
}

const points: KillPoint[] = [];
for (let index = 0; index < Number(values["kill-points"]); index++) {
  const point = await killPoint(index);
  points.push(point);
  if (!values.json) process.stderr.write(`kill point ${index + 1}: ${JSON.stringify(point)}\n`);
}
const killPoints = {
  points: points.length,
  withSurvivorsAfterKill: points.filter((point) => point.before > 0).length,
  survivorsAfterKill: points.reduce((sum, point) => sum + point.before, 0),
  groupsEndedByRecovery: points.reduce((sum, point) => sum + point.ended, 0),
  withSurvivorsAfterRecovery: points.filter((point) => point.after > 0).length,
  survivorsAfterRecovery: points.reduce((sum, point) => sum + point.after, 0),
};

const evals = [];
for (let index = 0; index < Number(values["eval-kills"]); index++) {
  const kill = await evalKill();
  evals.push(kill);
  if (!values.json) process.stderr.write(`eval kill ${index + 1}: ${JSON.stringify(kill)}\n`);
}
const evalKills = {
  kills: evals.length,
  caseWorkspacesLooseInTmpdir: evals.reduce((sum, kill) => sum + kill.looseCases, 0),
  caseWorkspacesInOwnDirectory: evals.reduce((sum, kill) => sum + kill.heldCases, 0),
  entriesLeftAfterNextEval: evals.reduce((sum, kill) => sum + kill.after, 0),
};

const report = { tracking: availableContainment(), calls, killPoints, evalKills };
process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : `${JSON.stringify(report, null, 2)}\n`);
