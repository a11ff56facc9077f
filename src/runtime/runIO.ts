import type { SqlClient } from "@effect/sql";
import { Cause, type Effect, Exit, type Fiber, FiberId, type ManagedRuntime } from "effect";
import { fromCallback } from "xstate";
import type { BatchReply, RunCommand, RunReply } from "../domain/index.js";
import { runMachine } from "../machines/run/machine.js";
import type { AgentRunStore } from "../persistence/AgentRunStore.js";
import type { RunOperations } from "./runOperations.js";

/**
 * The one bridge between the run machine and Effect: the run's I/O actor. It takes each command
 * the machine (or its tool batch) sends, runs the matching operation as a fiber on the runtime,
 * and answers with the operation's event. Leaving `sampling` early interrupts the provider call; an
 * ABORT interrupts a tool call (its AbortSignal fires); stopping the run interrupts everything.
 *
 * While calls wait for approval it reads the ledger for their decisions every `approvalPollMs`:
 * a decision made in another process (`agentloop approve`) reaches the run that way. Polling,
 * not LISTEN, so that it works the same on SQLite with several processes on one file.
 */

type Runtime = ManagedRuntime.ManagedRuntime<AgentRunStore | SqlClient.SqlClient, unknown>;

const defectText = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause);
  return error instanceof Error ? error.message : String(error);
};

interface RunningTool {
  fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined;
  readonly abort: AbortController;
}

export function provideRunMachine(runtime: Runtime, operationsOf: (runId: string) => RunOperations) {
  const runIO = fromCallback<RunCommand, { runId: string }>(({ input, receive, sendBack }) => {
    const operations = operationsOf(input.runId);
    const tools = new Map<string, RunningTool>();
    let sampling: Fiber.RuntimeFiber<unknown, unknown> | undefined;
    let stopped = false;

    /** Runs `effect`; its value is the answer, a defect becomes `onDefect`'s answer, an interrupt none. */
    const perform = <A extends RunReply>(
      effect: Effect.Effect<A, never, AgentRunStore | SqlClient.SqlClient>,
      onDefect: (detail: string) => RunReply,
    ) => {
      const fiber = runtime.runFork(effect);
      fiber.addObserver((exit) => {
        if (stopped) return;
        if (Exit.isSuccess(exit)) sendBack(exit.value);
        else if (!Cause.isInterruptedOnly(exit.cause)) sendBack(onDefect(defectText(exit.cause)));
      });
      return fiber;
    };
    const ledgerFailed = (detail: string): RunReply => ({ type: "LEDGER_FAILED", detail });

    const execute = (command: Extract<RunCommand, { type: "EXECUTE" }>) => {
      const abort = new AbortController();
      const { call } = command.planned;
      // The batch and the host hear that the call started only once its start record is durable.
      const entry: RunningTool = { fiber: undefined, abort };
      const effect = operations.execute(command, abort.signal, (startedAt) => {
        if (stopped || tools.get(call.id) !== entry) return;
        command.replyTo.send({
          type: "CALL_STARTED",
          index: command.index,
          at: Date.now(),
          startedAt,
        } satisfies BatchReply);
        sendBack({ type: "TOOL_STARTED", step: command.step, callId: call.id, toolName: call.name });
      });
      tools.set(call.id, entry);
      const fiber = runtime.runFork(effect);
      entry.fiber = fiber;
      fiber.addObserver((exit) => {
        if (tools.get(call.id) !== entry) return; // aborted: the batch has settled it already
        tools.delete(call.id);
        if (stopped || !Exit.isSuccess(exit)) return;
        command.replyTo.send({
          type: "CALL_SETTLED",
          index: command.index,
          at: Date.now(),
          result: exit.value,
        } satisfies BatchReply);
      });
    };

    const abortTool = (callId: string) => {
      const running = tools.get(callId);
      if (!running) return;
      tools.delete(callId);
      running.abort.abort();
      running.fiber?.unsafeInterruptAsFork(FiberId.none);
    };

    /** Calls waiting for approval whose decision has not reached the run yet. */
    const awaiting = new Set<string>();
    let poller: ReturnType<typeof setInterval> | undefined;
    let polling = false;
    const poll = () => {
      if (polling || stopped || awaiting.size === 0) return;
      polling = true;
      runtime
        .runPromise(operations.pollDecisions(new Set(awaiting)))
        .then((records) => {
          for (const record of records) {
            if (stopped || !awaiting.delete(record.callId) || !record.decision) continue;
            operations.noteDecision(record.toolName, record.decision);
            sendBack({ type: "APPROVAL_DECIDED", callId: record.callId, decision: record.decision });
          }
        })
        .catch(() => undefined) // a failed read is tried again at the next beat
        .finally(() => {
          polling = false;
          if (awaiting.size === 0) stopPolling();
        });
    };
    const stopPolling = () => {
      if (poller) clearInterval(poller);
      poller = undefined;
    };
    /** Calls whose wait ended, perhaps before their request was durable (a short expiry). */
    const closed = new Set<string>();
    const awaitDecision = (callId: string) => {
      if (closed.has(callId)) return;
      awaiting.add(callId);
      poller ??= setInterval(poll, operations.approvalPollMs);
      poller.unref?.();
    };

    receive((command) => {
      switch (command.type) {
        case "OPEN":
          perform(operations.open(command), ledgerFailed);
          return;
        case "SAMPLE":
          sampling = perform(operations.sample(command), (detail) => ({
            type: "SAMPLED",
            outcome: { type: "failure", reason: "provider_error", message: `provider actor crashed: ${detail}` },
          }));
          return;
        case "STOP_SAMPLE":
          sampling?.unsafeInterruptAsFork(FiberId.none);
          sampling = undefined;
          return;
        case "RECORD_CALLS":
          perform(operations.recordCalls(command), ledgerFailed);
          return;
        case "RECORD_TURN":
          perform(operations.recordTurn(command), ledgerFailed);
          return;
        case "RECORD_RESULTS":
          perform(operations.recordResults(command), ledgerFailed);
          return;
        case "VERIFY":
          perform(operations.verify(command), (detail) => ({ type: "VERIFY_FAILED", detail }));
          return;
        case "FINISH":
          perform(operations.finish(command), ledgerFailed);
          return;
        case "EXECUTE":
          execute(command);
          return;
        case "ABORT":
          abortTool(command.callId);
          return;
        case "REQUEST_APPROVAL": {
          const fiber = perform(operations.requestApproval(command), ledgerFailed);
          // Polling starts once the request is durable (a decision needs its request row).
          fiber.addObserver((exit) => {
            if (!stopped && Exit.isSuccess(exit) && exit.value.type === "APPROVAL_REQUESTED") {
              awaitDecision(command.callId);
              poll();
            }
          });
          return;
        }
        case "APPROVAL_CLOSED":
          closed.add(command.callId);
          awaiting.delete(command.callId);
          if (awaiting.size === 0) stopPolling();
          sendBack({ type: "APPROVAL_SETTLED", callId: command.callId, outcome: command.outcome });
          return;
      }
    });

    return () => {
      stopped = true;
      stopPolling();
      sampling?.unsafeInterruptAsFork(FiberId.none);
      for (const callId of [...tools.keys()]) abortTool(callId);
    };
  });
  return runMachine.provide({ actors: { runIO } });
}
