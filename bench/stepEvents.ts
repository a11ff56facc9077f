/**
 * `npx tsx bench/stepEvents.ts [runs]`: what XState does for W10, counted through `inspect` —
 * events delivered to actors (`@xstate.event`), microsteps taken (`@xstate.microstep`) and actors
 * made (`@xstate.actor`), per run and per tool step, with events broken down by type. A run is
 * W10 on a `:memory:` ledger through the built runtime, as `agentloop.w10.memory` runs it.
 */
import type { InspectionEvent } from "xstate";
import { AgentRuntime } from "../src/runtime/AgentRuntime.js";
import { W10_CONTRACT_INPUT, W10_INPUT, W10_STEPS, w10LookupTool, w10Provider } from "./workloads/w10.js";

const runs = Number(process.argv[2] ?? 20);
let counting = false;
const counts = { events: 0, microsteps: 0, actors: 0 };
const byType = new Map<string, number>();
const inspect = (event: InspectionEvent) => {
  if (!counting) return;
  if (event.type === "@xstate.event") {
    counts.events += 1;
    const type = event.event.type.startsWith("xstate.done.actor.") ? "xstate.done.actor.*" : event.event.type;
    byType.set(type, (byType.get(type) ?? 0) + 1);
  } else if (event.type === "@xstate.microstep") counts.microsteps += 1;
  else if (event.type === "@xstate.actor") counts.actors += 1;
};

const runtime = await AgentRuntime.make({
  database: ":memory:",
  provider: w10Provider(0),
  tools: [w10LookupTool],
  inspect,
});
const runOnce = async (runId: string) => {
  const result = await runtime.startRun({ sessionId: "bench", input: W10_INPUT, contract: W10_CONTRACT_INPUT, runId })
    .result;
  if (result.terminalState !== "completed" || result.steps !== W10_STEPS)
    throw new Error(`${runId} ended ${result.terminalState}/${result.terminalReason}`);
};
await runOnce("warm-up");
counting = true;
for (let i = 0; i < runs; i++) await runOnce(`run-${i}`);
counting = false;
await runtime.dispose();

const perRun = (n: number) => (n / runs).toFixed(1);
const perStep = (n: number) => (n / runs / W10_STEPS).toFixed(2);
process.stdout.write(
  `${runs} W10 runs: per run ${perRun(counts.events)} events, ${perRun(counts.microsteps)} microsteps, ` +
    `${perRun(counts.actors)} actors; per step ${perStep(counts.events)} events, ${perStep(counts.microsteps)} microsteps\n`,
);
for (const [type, n] of [...byType].sort((a, b) => b[1] - a[1]))
  process.stdout.write(`  ${type.padEnd(28)} ${perRun(n)}\n`);
