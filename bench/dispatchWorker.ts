/**
 * The worker process of `dispatch.latency`: `node --import tsx --import bench/lib/builtPackage.mjs
 * bench/dispatchWorker.ts <database>`. A runtime made with `worker` on the shared ledger; prints
 * `ready`, then one line `<what> <runId> [<callId>] <epoch ms>` at each instant the bench measures
 * (first model request, tool waiting, approval asked, tool started, run ended). Stops when stdin
 * closes. With `--supervise` it is no worker but a supervisor that takes over runs whose runtime
 * died; `--lease-ms N` sets the lease (renewed every N/4 ms).
 */
import { performance } from "node:perf_hooks";
import { AgentRuntime, type RunHandle } from "../src/runtime/AgentRuntime.js";
import { dispatchAgents } from "./lib/dispatchAgents.js";

const [database, ...flags] = process.argv.slice(2);
if (!database) {
  process.stderr.write("usage: bench/dispatchWorker.ts <database> [--supervise] [--lease-ms N] [--concurrency N]\n");
  process.exit(2);
}
// `--supervise`: no worker; takes over runs whose runtime died (the failover measure).
const supervising = flags.includes("--supervise");
const leaseAt = flags.indexOf("--lease-ms");
const leaseMs = leaseAt >= 0 ? Number(flags[leaseAt + 1]) : undefined;
const concurrencyAt = flags.indexOf("--concurrency");
const concurrency = concurrencyAt >= 0 ? Number(flags[concurrencyAt + 1]) : 64;
const now = () => performance.timeOrigin + performance.now();
const out = (line: string) => process.stdout.write(`${line}\n`);
const watch = (handle: RunHandle) => {
  void handle.result.then(() => out(`ended ${handle.runId} ${now()}`));
  void (async () => {
    for await (const event of handle.events) {
      if (event.type === "approval_requested") out(`asked ${handle.runId} ${event.callId} ${now()}`);
    }
  })();
};
const runtime = await AgentRuntime.make({
  database,
  agents: dispatchAgents((what, runId) => out(`${what} ${runId} ${now()}`)),
  ...(leaseMs ? { lease: { durationMs: leaseMs, renewEveryMs: Math.max(50, Math.floor(leaseMs / 4)) } } : {}),
  ...(supervising ? { supervise: { onResumed: watch } } : { worker: { concurrency, onRun: watch } }),
});
out("ready");
process.stdin.resume();
process.stdin.once("end", async () => {
  await runtime.dispose();
  process.exit(0);
});
