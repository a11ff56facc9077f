/**
 * The child process of the kill fuzz (fuzz/killFuzz.ts): drives a seeded workload of real runs
 * on a real SQLite ledger file through the built package (dist/), and says on stdout what it does,
 * one line each, so that the parent knows what was durable before it SIGKILLed this process:
 *
 *   loaded                               the package is imported; the runtime is about to open
 *   opened <recovered>                   AgentRuntime.make resolved (it recovered <recovered> runs)
 *   plan <runId> <sessionId> <cancelMs|-> <contract> <gate|->
 *   started <runId>                      startRun returned
 *   held <runId>                         the run's gate call is waiting for `release` on stdin
 *   finished <runId> <state> <reason>    the run's result resolved (its terminal rows are written)
 *   done                                 every run finished and the runtime is disposed
 *
 * Usage: [KILL_FUZZ_BUNDLE=/abs/bundle.mjs] node fuzz/killChild.mjs <dbFile> <seed> <childTag> [hold]
 * With `hold`, the first run calls the `gate` tool, which returns only once the parent writes
 * `release` on stdin: the parent recovers the file while this process is alive and holds a run.
 * Any failure prints `error <message>` on stderr and exits 1 (the parent counts it as a crash).
 */

// The built package; or, when the parent made one (KILL_FUZZ_BUNDLE), the same dist files bundled
// into one module, which loads in about half the CPU time (a fuzz run starts hundreds of children).
const bundle = process.env.KILL_FUZZ_BUNDLE;
const { AgentRuntime, defineTool, jsonSchemaInput, fixtureTool, scriptedProvider } = bundle
  ? await import(bundle)
  : { ...(await import("../dist/index.js")), ...(await import("../dist/entries/testing.js")) };

const [file, seedText, childTag, holdFlag] = process.argv.slice(2);
if (!file || !seedText || !childTag) {
  process.stderr.write("usage: node fuzz/killChild.mjs <dbFile> <seed> <childTag> [hold]\n");
  process.exit(2);
}
const hold = holdFlag === "hold";

const say = (line) => process.stdout.write(`${line}\n`);
say("loaded");

/** mulberry32: the same seed gives the same workload. */
function makeRandom(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
  };
}

const random = makeRandom(Number(seedText));

/** Sleeps `ms`, or rejects as soon as `signal` aborts. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason ?? new Error("aborted"));
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason ?? new Error("aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const anyObject = jsonSchemaInput({ type: "object" });

let releaseGate;
const gateOpen = new Promise((resolve) => {
  releaseGate = resolve;
});
let stdinBuffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  stdinBuffer += chunk;
  if (stdinBuffer.includes("release\n")) releaseGate();
});
// The parent ending stdin must not end a held run by itself: only `release` opens the gate.
process.stdin.on("error", () => {});

const tools = [
  defineTool({
    name: "slow_lookup",
    description: "Looks a key up slowly (waits the given milliseconds).",
    kind: "observe",
    input: anyObject,
    execute: async (args, { signal, callId }) => {
      await sleep(Number(args.ms ?? 50), signal);
      return { status: "ok", output: { key: args.key ?? null, found: true }, evidence: { lookup: callId } };
    },
  }),
  defineTool({
    name: "fast_read",
    description: "Reads a value at once.",
    kind: "observe",
    input: anyObject,
    execute: async (args) => ({ status: "ok", output: { value: `value of ${String(args.key)}` } }),
  }),
  defineTool({
    name: "fast_write",
    description: "Writes a value at once.",
    kind: "mutate",
    input: anyObject,
    execute: async (args, { callId }) => ({
      status: "ok",
      output: { written: String(args.key) },
      evidence: { write_id: `w-${callId}`, bytes_written: String(args.key).length },
    }),
  }),
  defineTool({
    name: "flaky_check",
    description: "A check that reports an error half of the time.",
    kind: "observe",
    input: anyObject,
    execute: async (args, { signal }) => {
      await sleep(Number(args.ms ?? 5), signal);
      return Number(args.n ?? 0) % 2 === 0
        ? { status: "ok", output: "passed" }
        : { status: "error", output: "the check did not pass" };
    },
  }),
  fixtureTool({ name: "fixture_probe", kind: "observe", outcomes: [{ status: "ok", output: "probed", delayMs: 15 }] }),
  defineTool({
    name: "gate",
    description: "Waits until the parent process releases it.",
    kind: "observe",
    input: anyObject,
    execute: async (_args, { signal, runId }) => {
      say(`held ${runId}`);
      await Promise.race([gateOpen, sleep(120_000, signal)]);
      return { status: "ok", output: "released" };
    },
  }),
];

const CONTRACTS = {
  none: undefined,
  observe: { evidenceMode: "observe" },
  mutate: { evidenceMode: "mutate", requiredToolNames: ["fast_write"] },
};

/** One call of a tool step; arguments differ per call so that no run looks like a doom loop. */
function toolCall(runIndex, step, k) {
  const id = `c${step}_${k}`;
  const name = random.pick(["slow_lookup", "slow_lookup", "fast_read", "fast_write", "flaky_check", "fixture_probe"]);
  const ms = random.chance(0.3) ? random.int(80, 320) : random.int(2, 60);
  return { id, name, arguments: { key: `k${runIndex}.${step}.${k}`, ms, n: random.int(0, 9) } };
}

/** The seeded workload: runs, their model scripts, sessions, cancels, contracts and start order. */
function planRuns() {
  const count = random.int(3, 6);
  const sessions = [`${childTag}-s0`, `${childTag}-s1`, `shared-${random.int(0, 1)}`];
  const plans = [];
  for (let i = 0; i < count; i++) {
    const gate = hold && i === 0;
    // Often the first run is quick (two steps, fast tools, no model delay): done before most kills.
    const quick = !gate && i === 0 && random.chance(0.6);
    const modelSteps = gate || quick ? 2 : random.int(2, 6);
    const steps = [];
    for (let step = 1; step < modelSteps; step++) {
      const calls = random.chance(0.75) ? random.int(2, 4) : 1;
      const toolCalls = quick
        ? Array.from({ length: calls }, (_, k) => ({
            id: `c${step}_${k}`,
            name: "fast_read",
            arguments: { key: `q${k}` },
          }))
        : Array.from({ length: calls }, (_, k) => toolCall(i, step, k));
      if (gate && step === 1) toolCalls[0] = { id: "c1_gate", name: "gate", arguments: { run: i } };
      steps.push({ text: `Step ${step}: checking.`, toolCalls, delayMs: quick ? 0 : random.int(0, 30) });
    }
    steps.push({ text: `The values for request ${i} are listed above.`, delayMs: quick ? 0 : random.int(0, 20) });
    const contractName = gate ? "none" : random.pick(["none", "observe", "observe", "mutate"]);
    // A contract run always has the receipts it needs (flaky_check may fail every other call).
    if (contractName !== "none")
      steps[0].toolCalls.push({ id: "c1_read", name: "fast_read", arguments: { key: `r${i}` } });
    if (contractName === "mutate") {
      steps[0].toolCalls.push({ id: "c1_write", name: "fast_write", arguments: { key: `w${i}` } });
    }
    plans.push({
      runId: `${childTag}-r${i}`,
      sessionId: random.pick(sessions),
      steps,
      contractName,
      cancelAfterMs: !gate && !quick && random.chance(0.2) ? random.int(0, 400) : undefined,
      // Start now, after a delay, or when an earlier run of the same session has finished.
      startAfterRun: i > 0 && random.chance(0.35) ? random.int(0, i - 1) : undefined,
      startDelayMs: !quick && random.chance(0.5) ? random.int(0, 150) : 0,
      gate,
    });
  }
  for (const plan of plans) {
    if (plan.startAfterRun !== undefined) plan.sessionId = plans[plan.startAfterRun].sessionId;
  }
  return plans;
}

async function main() {
  const plans = planRuns();
  const runtime = await AgentRuntime.make({
    database: file,
    tools,
    retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 },
  });
  say(`opened ${runtime.recovered.length}`);
  for (const plan of plans) {
    say(
      `plan ${plan.runId} ${plan.sessionId} ${plan.cancelAfterMs ?? "-"} ${plan.contractName} ${plan.gate ? "gate" : "-"}`,
    );
  }
  const finished = new Map();
  const runOne = async (plan) => {
    if (plan.startAfterRun !== undefined) await finished.get(plans[plan.startAfterRun].runId);
    if (plan.startDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, plan.startDelayMs));
    const contract = CONTRACTS[plan.contractName];
    const handle = runtime.startRun({
      runId: plan.runId,
      sessionId: plan.sessionId,
      input: `Request ${plan.runId}: look the keys up.`,
      provider: scriptedProvider(plan.steps),
      ...(contract ? { contract } : {}),
    });
    say(`started ${handle.runId}`);
    const timer = plan.cancelAfterMs === undefined ? undefined : setTimeout(() => handle.cancel(), plan.cancelAfterMs);
    const result = await handle.result;
    if (timer) clearTimeout(timer);
    say(`finished ${handle.runId} ${result.terminalState} ${result.terminalReason}`);
  };
  for (const plan of plans) {
    let settle;
    finished.set(
      plan.runId,
      new Promise((resolve) => {
        settle = resolve;
      }),
    );
    plan.settle = settle;
  }
  await Promise.all(plans.map((plan) => runOne(plan).finally(() => plan.settle())));
  await runtime.dispose();
  say("done");
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`error ${error?.stack ?? error}\n`);
  process.exit(1);
});
