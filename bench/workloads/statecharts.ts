/**
 * `floor.statecharts`: what the statecharts alone cost per W10 step — the runtime's own run
 * machine (with its tool batch and tool call machines, provided exactly as AgentRuntime provides
 * them) driving actors whose operations replay the outputs one real W10 run produced: no Effect,
 * no SQLite, no provider, no tools. The part of `agentloop.w10.*` that is XState's.
 */
import { ManagedRuntime } from "effect";
import { createActor, toPromise } from "xstate";
import type { AgentRunResult } from "../../src/domain/index.js";
import type { RunInput } from "../../src/machines/run.machine.js";
import { ledgerLayer } from "../../src/persistence/ledger.js";
import { runOperations } from "../../src/runtime/runActors.js";
import { provideRunMachine, type RunOperations } from "../../src/runtime/runMachine.js";
import { createTranscriptStore } from "../../src/runtime/stores.js";
import { DEFAULT_RETRY_POLICY } from "../../src/services/providers/retry.js";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../../src/services/tools/callPlanner.js";
import { loopFields, loopPlan, measureSequential } from "../lib/measure.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";
import { W10_CONTRACT, W10_INPUT, W10_STEPS, w10LookupTool, w10Provider } from "./w10.js";

type OperationName = keyof RunOperations;

const runInput = (runId: string): RunInput => ({
  runId,
  traceId: runId,
  sessionId: "bench",
  input: W10_INPUT,
  contract: W10_CONTRACT,
  toolKinds: { lookup: "observe" },
  maxSteps: 24,
  doomLoopThreshold: 3,
  maxProtocolRepairs: 1,
  toolConcurrency: 4,
  locale: "en",
  capabilities: w10Provider(0).capabilities,
  receiptVerification: "enforce",
});

/** One real W10 run (ledger in :memory:), its operations' outputs recorded in call order. */
async function recordOutputs(): Promise<Map<OperationName, unknown[]>> {
  const runtime = ManagedRuntime.make(ledgerLayer({ filename: ":memory:" }));
  try {
    const provider = w10Provider(0);
    const real = runOperations({
      runtime: runtime as never,
      runId: "recorded",
      provider,
      tools: new Map([[w10LookupTool.name, w10LookupTool]]),
      allowedTools: new Set([w10LookupTool.name]),
      transcript: createTranscriptStore([]),
      retry: DEFAULT_RETRY_POLICY,
      defaultToolTimeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
      now: () => new Date().toISOString(),
      receiptVerification: "enforce",
      callStartedAt: new Map(),
    });
    const outputs = new Map<OperationName, unknown[]>();
    const recording = Object.fromEntries(
      Object.entries(real).map(([name, operation]) => [
        name,
        async (...args: unknown[]) => {
          const output = await (operation as (...a: unknown[]) => Promise<unknown>)(...args);
          outputs.set(name as OperationName, [...(outputs.get(name as OperationName) ?? []), output]);
          return output;
        },
      ]),
    ) as unknown as RunOperations;
    const machine = provideRunMachine(() => recording);
    const result = (await toPromise(createActor(machine, { input: runInput("recorded") }).start())) as AgentRunResult;
    if (result.terminalState !== "completed" || result.steps !== W10_STEPS) {
      throw new Error(`the recorded W10 run ended ${result.terminalState}/${result.terminalReason}`);
    }
    return outputs;
  } finally {
    await runtime.dispose();
  }
}

/** Operations that hand back the recorded outputs, in order, for one run. */
function replaying(outputs: Map<OperationName, unknown[]>): RunOperations {
  const next = new Map<OperationName, number>();
  const replay = (name: OperationName) => async () => {
    const index = next.get(name) ?? 0;
    next.set(name, index + 1);
    return outputs.get(name)?.[index];
  };
  return Object.fromEntries([...outputs.keys()].map((name) => [name, replay(name)])) as unknown as RunOperations;
}

export async function benchStatecharts(options: BenchOptions): Promise<BenchResult> {
  const outputs = await recordOutputs();
  const inFlight = new Map<string, RunOperations>();
  const machine = provideRunMachine((runId) => inFlight.get(runId)!);
  const runOnce = async (runId: string) => {
    inFlight.set(runId, replaying(outputs));
    const result = (await toPromise(createActor(machine, { input: runInput(runId) }).start())) as AgentRunResult;
    inFlight.delete(runId);
    if (result.terminalState !== "completed" || result.steps !== W10_STEPS) {
      throw new Error(`statecharts run ${runId} ended ${result.terminalState}/${result.terminalReason}`);
    }
  };
  const measured = await options.measured(() =>
    measureSequential(loopPlan(options.quick, 100, W10_STEPS), (label) => runOnce(`run-${label}`)),
  );
  return {
    id: "floor.statecharts",
    what: "the run machine (+ tool batch, tool call machines) as AgentRuntime provides it, its actors replaying one recorded W10 run's outputs: no Effect, no SQLite",
    ...loopFields(measured),
  };
}
