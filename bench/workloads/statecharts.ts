/**
 * `floor.statecharts`: what the statecharts alone cost per W10 step — the runtime's own run
 * machine and tool batch machine, their I/O actor replaying the answers one real W10 run's I/O
 * actor gave: no Effect, no SQLite, no provider, no tools. The part of `agentloop.w10.*` that is
 * XState's.
 */
import { type AnyActorRef, createActor, fromCallback, toPromise } from "xstate";
import type { AgentRunResult, BatchReply, RunCommand, RunReply } from "../../src/domain/index.js";
import type { RunInput } from "../../src/machines/run/context.js";
import { runMachine } from "../../src/machines/run/machine.js";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { loopFields, loopPlan, measureSequential } from "../lib/measure.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";
import { W10_CONTRACT, W10_INPUT, W10_STEPS, w10LookupTool, w10Provider } from "./w10.js";

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

/** What the I/O actor answered during one real W10 run, in order: to the run, and about each call it executed. */
interface Recording {
  readonly toRun: RunReply[];
  readonly toCaller: BatchReply[];
}

/** One real W10 run (ledger in :memory:), the I/O actor's answers recorded through XState's inspection API. */
async function recordReplies(): Promise<Recording> {
  const recording: Recording = { toRun: [], toCaller: [] };
  const runtime = await AgentRuntime.make({
    database: ":memory:",
    provider: w10Provider(0),
    inspect: (event) => {
      if (event.type !== "@xstate.event") return;
      const sent = event.event as RunReply | BatchReply;
      // The I/O actor reports on a call through the reference EXECUTE named (no source is recorded).
      if (sent.type === "CALL_STARTED" || sent.type === "CALL_SETTLED") recording.toCaller.push(sent);
      else if ((event.sourceRef as AnyActorRef | undefined)?.id === "io") recording.toRun.push(sent as RunReply);
    },
  });
  try {
    const handle = runtime.startRun({
      sessionId: "bench",
      input: W10_INPUT,
      contract: W10_CONTRACT,
      tools: [w10LookupTool],
    });
    const result = await handle.result;
    if (result.terminalState !== "completed" || result.steps !== W10_STEPS) {
      throw new Error(`the recorded W10 run ended ${result.terminalState}/${result.terminalReason}`);
    }
    return recording;
  } finally {
    await runtime.dispose();
  }
}

/** An I/O actor that answers each command with the next recorded answer: no Effect, no SQLite, no tools. */
function replayingIO(recording: Recording) {
  return fromCallback<RunCommand, { runId: string }>(({ receive, sendBack }) => {
    let toRun = 0;
    let toCaller = 0;
    receive((command) => {
      if (command.type === "STOP_SAMPLE" || command.type === "ABORT") return;
      if (command.type === "EXECUTE") {
        // CALL_STARTED and CALL_SETTLED to whoever asked (the run, for a step's one call), as recorded.
        command.replyTo.send(recording.toCaller[toCaller++]!);
        command.replyTo.send(recording.toCaller[toCaller++]!);
        return;
      }
      sendBack(recording.toRun[toRun++]!);
    });
  });
}

export async function benchStatecharts(options: BenchOptions): Promise<BenchResult> {
  const recording = await recordReplies();
  const machine = runMachine.provide({ actors: { runIO: replayingIO(recording) } });
  const runOnce = async (runId: string) => {
    const result = (await toPromise(createActor(machine, { input: runInput(runId) }).start())) as AgentRunResult;
    if (result.terminalState !== "completed" || result.steps !== W10_STEPS) {
      throw new Error(`statecharts run ${runId} ended ${result.terminalState}/${result.terminalReason}`);
    }
  };
  const measured = await options.measured(() =>
    measureSequential(loopPlan(options.quick, 100, W10_STEPS), (label) => runOnce(`run-${label}`)),
  );
  return {
    id: "floor.statecharts",
    what: "the run machine (+ its tool batch machine), its I/O actor replaying one recorded W10 run's answers: no Effect, no SQLite",
    ...loopFields(measured),
  };
}
