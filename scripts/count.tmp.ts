import { AgentRuntime } from "../src/runtime/AgentRuntime.js";
import { W10_CONTRACT_INPUT, W10_INPUT, w10LookupTool, w10Provider } from "../bench/workloads/w10.js";
const counts = new Map<string, number>();
let actors = 0, micro = 0;
const runtime = await AgentRuntime.make({ database: ":memory:", provider: w10Provider(0), tools: [w10LookupTool],
  inspect: (e: any) => {
    if (e.type === "@xstate.event") { const k = `${e.actorRef?.logic?.id ?? e.actorRef?.id ?? "?"} <- ${e.event.type}`; counts.set(k, (counts.get(k) ?? 0) + 1); }
    if (e.type === "@xstate.actor") actors++;
    if (e.type === "@xstate.microstep") micro++;
  } });
const h = runtime.startRun({ sessionId: "s", input: W10_INPUT, contract: W10_CONTRACT_INPUT, runId: "r1" });
console.log((await h.result).terminalState);
console.log({ actors, micro });
for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) console.log(v, k);
await runtime.dispose();
