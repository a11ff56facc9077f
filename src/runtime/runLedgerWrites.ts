import * as Effect from "effect/Effect";
import { errorText } from "../domain/errorText.js";
import type {
  ContextMessage,
  ExecutionReceipt,
  FinishRunInput,
  LedgerWriteInput,
  OpenRunInput,
  PendingEvent,
  PlannedCall,
  RunReply,
  ToolResultsInput,
  ToolSettlement,
} from "../domain/index.js";
import { AgentRunStore, type EventToAppend } from "../persistence/AgentRunStore.js";
import { DEFAULT_PAYLOAD_CAP_BYTES, sanitizePayload } from "../persistence/payloadHygiene.js";
import { type ReceiptContext, receiptOf, toolResultRecords } from "../services/tools/resultRecords.js";
import type { RunWiring } from "./commandHandlers.js";
import { fitTerminal } from "./terminalRow.js";
import type { CallBook } from "./toolExecution.js";

/**
 * The run's ledger writes, as the command handlers perform them: opening the run, a step's rows,
 * a step's results with their receipts, and the terminal. Each numbers its rows after the `after`
 * sequence its command carries and answers with the new last one; a refused write is the
 * machine's LEDGER_FAILED, never a failure.
 */

type Reply<T extends RunReply["type"]> = Extract<RunReply, { type: T }>;
type LedgerReply<T extends RunReply["type"]> = Reply<T> | Reply<"LEDGER_FAILED">;

/** A ledger write's failure, expected or not, becomes the machine's LEDGER_FAILED. */
export const orLedgerFailed = <A, R>(
  effect: Effect.Effect<A, unknown, R>,
): Effect.Effect<A | Reply<"LEDGER_FAILED">, never, R> =>
  effect.pipe(
    Effect.catchAll((error) => Effect.succeed({ type: "LEDGER_FAILED" as const, detail: errorText(error) })),
    Effect.catchAllDefect((defect) => Effect.succeed({ type: "LEDGER_FAILED" as const, detail: errorText(defect) })),
  );

type LedgerWiring = Pick<
  RunWiring,
  "agentName" | "provider" | "tools" | "transcript" | "now" | "receiptVerification" | "payloadCapBytes"
>;

/** A row of the step's rows numbered from `first`. */
const numbered = (events: ReadonlyArray<PendingEvent>, first: number): EventToAppend[] =>
  events.map((event, index) => ({ sequence: first + index, type: event.type, payload: event.payload }));

/**
 * A call of the current step that never got a recorded result. Only a user's cancel may call
 * it `cancelled_by_user`; otherwise (a ledger write failed, the batch crashed) the call may have
 * run and its side effects are unknown: `interrupted`, as start-up recovery says.
 */
const unsettledSettlement =
  (terminal: FinishRunInput["terminal"]) =>
  (planned: PlannedCall): ToolSettlement => ({
    callId: planned.call.id,
    toolName: planned.call.name,
    inputFingerprint: planned.inputFingerprint,
    status: "cancelled",
    reason: terminal.reason === "cancelled_by_user" ? "cancelled_by_user" : "interrupted",
    output: { error: "the run ended before this call reported" },
    evidence: {},
    startedAt: null,
    finishedAt: null,
  });

/** The writes of one run (a class: a run keeps it for its whole life, and methods cost it nothing). */
export class RunLedgerWrites {
  constructor(
    private readonly wiring: LedgerWiring,
    private readonly calls: CallBook,
  ) {}

  private append(messages: ReadonlyArray<ContextMessage>) {
    this.wiring.transcript.trigger.append({ messages });
  }

  open(input: OpenRunInput & { readonly after: number }): Effect.Effect<LedgerReply<"OPENED">, never, AgentRunStore> {
    const { wiring } = this;
    return orLedgerFailed(
      Effect.gen(this, function* () {
        const store = yield* AgentRunStore;
        // A resumed run's rows exist already: opening writes none.
        if (input.resumed) return { type: "OPENED", lastSequence: input.after } as const;
        yield* store.createRun(
          {
            runId: input.runId,
            sessionId: input.sessionId,
            traceId: input.traceId,
            contract: input.contract,
            providerId: wiring.provider.id,
            model: wiring.provider.model,
            apiFamily: wiring.provider.apiFamily,
            verificationMode: wiring.receiptVerification,
            agentName: wiring.agentName ?? null,
          },
          [{ sequence: 1, type: "user_input", payload: { text: input.input, origin: "user" } }],
        );
        this.append([{ role: "user", content: input.input }]);
        return { type: "OPENED", lastSequence: 1 } as const;
      }),
    );
  }

  writeRows<T extends "CALLS_RECORDED" | "TURN_RECORDED">(
    type: T,
    input: LedgerWriteInput & { readonly after: number },
  ): Effect.Effect<LedgerReply<T>, never, AgentRunStore> {
    return orLedgerFailed(
      Effect.gen(this, function* () {
        const store = yield* AgentRunStore;
        const events = numbered(input.events, input.after + 1);
        yield* store.appendEvents(input.runId, events);
        this.append(input.transcript);
        return { type, lastSequence: input.after + events.length } as Reply<T>;
      }),
    );
  }

  private receiptContext(finishedAt: string): ReceiptContext {
    const { calls, wiring } = this;
    return {
      finishedAt,
      startedAtOf: (callId) => calls.startedAt.get(callId),
      toolOf: (name) => wiring.tools.get(name),
      notedEvidenceOf: (callId) => calls.notedEvidence.get(callId),
    };
  }

  private resultRecords(runId: string, step: number, settlements: ReadonlyArray<ToolSettlement>, first: number) {
    return toolResultRecords(runId, step, settlements, first, this.receiptContext(this.wiring.now()));
  }

  recordResults(
    input: ToolResultsInput & { readonly after: number },
  ): Effect.Effect<LedgerReply<"RESULTS_RECORDED">, never, AgentRunStore> {
    return orLedgerFailed(
      Effect.gen(this, function* () {
        const store = yield* AgentRunStore;
        const records = this.resultRecords(input.runId, input.step, input.settlements, input.after + 1);
        yield* store.appendEvents(input.runId, records.events, records.receipts);
        this.append(records.messages);
        return {
          type: "RESULTS_RECORDED" as const,
          lastSequence: input.after + records.events.length,
          receipts: records.receipts,
          resultHashes: records.receipts.map((receipt) => receipt.evidence.output_sha256 as string),
          outputs: input.settlements.map((settlement) =>
            sanitizePayload(settlement.output, this.wiring.payloadCapBytes ?? DEFAULT_PAYLOAD_CAP_BYTES),
          ),
        };
      }),
    );
  }

  /**
   * After a ledger write failed, the rows that should have landed with the terminal may be the
   * very rows the ledger refuses. Closes the run the way start-up recovery does: receipts for the
   * step's calls whose tool_call row is durable but that have no receipt, then the terminal.
   */
  private closeAfterLedgerFailure(input: FinishRunInput) {
    return Effect.gen(this, function* () {
      const store = yield* AgentRunStore;
      const events = yield* store.listRunEvents(input.runId);
      const receipted = new Set((yield* store.listReceipts(input.runId)).map((receipt) => receipt.callId));
      const called = new Set(
        events
          .filter((event) => event.type === "tool_call")
          .map((event) => (event.payload as { callId?: string }).callId),
      );
      const finishedAt = this.wiring.now();
      const context = this.receiptContext(finishedAt);
      const receipts: ExecutionReceipt[] = input.unsettled
        .filter((planned) => called.has(planned.call.id) && !receipted.has(planned.call.id))
        .map((planned) => receiptOf(input.runId, unsettledSettlement(input.terminal)(planned), context));
      const sequence = (events[events.length - 1]?.sequence ?? 0) + 1;
      yield* store.finishRun(input.runId, {
        sequence,
        receipts,
        terminal: input.terminal,
        failureDetail: input.detail,
      });
      return { type: "FINISHED" as const, receipts };
    });
  }

  /** Not interruptible by the run: the terminal row must land once decided. */
  finish(
    input: FinishRunInput & { readonly after: number },
  ): Effect.Effect<LedgerReply<"FINISHED">, never, AgentRunStore> {
    return orLedgerFailed(
      Effect.gen(this, function* () {
        const store = yield* AgentRunStore;
        const leading = numbered(input.events, input.after + 1);
        const unsettled = this.resultRecords(
          input.runId,
          Math.max(1, input.terminal.steps),
          input.unsettled.map(unsettledSettlement(input.terminal)),
          input.after + 1 + leading.length,
        );
        const events = [...leading, ...unsettled.events];
        const sequence = input.after + 1 + events.length;
        yield* store.finishRun(input.runId, {
          sequence,
          events,
          receipts: unsettled.receipts,
          terminal: fitTerminal(input.terminal, this.wiring.payloadCapBytes),
          failureDetail: input.detail,
        });
        this.append([...input.transcript, ...unsettled.messages]);
        return { type: "FINISHED" as const, receipts: unsettled.receipts };
      }).pipe(
        Effect.catchAll((error) =>
          input.terminal.reason === "ledger_write_failed" ? this.closeAfterLedgerFailure(input) : Effect.fail(error),
        ),
        Effect.uninterruptible,
      ),
    );
  }
}
