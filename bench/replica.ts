/**
 * One replica of `scale.replicas`: `node --import tsx bench/replica.ts <database> <run-id prefix> <runs>`.
 * Opens an AgentRuntime on the shared ledger, prints `ready`, waits for `go` on stdin, then starts
 * all its W10 runs at once (5 ms model latency per step, like scale.concurrent) and prints one
 * JSON line `{ wallMs, cpuUs, completed }` when every run has ended `completed`.
 */
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { makeAgentloopW10 } from "./workloads/agentloop.js";
import { SCALE_LATENCY_MS } from "./workloads/scale.js";

const [database, prefix, count] = process.argv.slice(2);
if (!database || !prefix || !count || !Number.isInteger(Number(count))) {
  process.stderr.write("usage: bench/replica.ts <database> <run-id prefix> <runs>\n");
  process.exit(2);
}
const bench = await makeAgentloopW10({ database, latencyMs: SCALE_LATENCY_MS });
process.stdout.write("ready\n");
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() !== "go") continue;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const runs = Array.from({ length: Number(count) }, (_, i) => bench.runOnce(`${prefix}${i}`));
  await Promise.all(runs);
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  process.stdout.write(`${JSON.stringify({ wallMs, cpuUs: cpu.user + cpu.system, completed: runs.length })}\n`);
  break;
}
lines.close();
await bench.dispose();
process.exit(0);
