/**
 * The worker process of `dispatch.latency`: `node --import tsx --import bench/lib/builtPackage.mjs
 * bench/dispatchWorker.ts <database>`. A runtime made with `worker` on the shared ledger; prints
 * `ready`, then one line `<what> <runId> [<callId>] <epoch ms>` at each instant the bench measures
 * (first model request, tool waiting, approval asked, tool started, run ended). Stops when stdin closes.
 */
import { performance } from "node:perf_hooks";
import { AgentRuntime } from "../src/runtime/AgentRuntime.js";
import { dispatchAgents } from "./lib/dispatchAgents.js";

const [database] = process.argv.slice(2);
if (!database) {
  process.stderr.write("usage: bench/dispatchWorker.ts <database>\n");
  process.exit(2);
}
const now = () => performance.timeOrigin + performance.now();
const out = (line: string) => process.stdout.write(`${line}\n`);
const runtime = await AgentRuntime.make({
  database,
  agents: dispatchAgents((what, runId) => out(`${what} ${runId} ${now()}`)),
  worker: {
    concurrency: 64,
    onRun: (handle) => {
      void handle.result.then(() => out(`ended ${handle.runId} ${now()}`));
      void (async () => {
        for await (const event of handle.events) {
          if (event.type === "approval_requested") out(`asked ${handle.runId} ${event.callId} ${now()}`);
        }
      })();
    },
  },
});
out("ready");
process.stdin.resume();
process.stdin.once("end", async () => {
  await runtime.dispose();
  process.exit(0);
});
