import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as FiberId from "effect/FiberId";
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
import { AgentRunStore, type EventToAppend, type LedgerError, type ToolStart } from "../persistence/AgentRunStore.js";
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

/**
 * A step's tool_call rows that wait for the run's next write (RECORD_CALLS `withStart`): the
 * start record of the step's one call, or else its results or the run's end.
 */
interface HeldRows {
  readonly events: ReadonlyArray<EventToAppend>;
  readonly transcript: ReadonlyArray<ContextMessage>;
  /** A write that carries them is in flight. */
  busy: boolean;
  /** Made by a write that found them busy, to wait for the one in flight. */
  released?: Deferred.Deferred<void>;
}

const NO_ROWS: ReadonlyArray<EventToAppend> = [];

/** The writes of one run (a class: a run keeps it for its whole life, and methods cost it nothing). */
export class RunLedgerWrites {
  /**
   * Held rows: a step whose one call runs alone commits its tool_call rows together with that
   * call's start record — one commit fewer a step, and still durable before the tool runs.
   */
  private held: HeldRows | undefined;

  constructor(
    private readonly wiring: LedgerWiring,
    private readonly calls: CallBook,
  ) {}

  /**
   * Runs a write of the run with the held rows (if any) written first, in its transaction; once
   * it commits they are no longer held. A write that fails leaves them held for the next one. The
   * run's writes follow one another, except a cancel's or a timeout's results while the call's
   * start is in flight: such a write waits for the start's end and then looks again.
   */
  private withHeld<A, E, R>(
    write: (held: ReadonlyArray<EventToAppend>) => Effect.Effect<A, E, R>,
  ): Effect.Effect<A, E, R> {
    return Effect.suspend(() => {
      const held = this.held;
      if (held === undefined) return write(NO_ROWS);
      if (held.busy) {
        held.released ??= Deferred.unsafeMake<void>(FiberId.none);
        return Effect.zipRight(Deferred.await(held.released), this.withHeld(write));
      }
      held.busy = true;
      return write(held.events).pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            held.busy = false;
            if (Exit.isSuccess(exit) && this.held === held) {
              this.held = undefined;
              this.append(held.transcript);
            }
            const released = held.released;
            if (released !== undefined) {
              held.released = undefined;
              Deferred.unsafeDone(released, Exit.void);
            }
          }),
        ),
      );
    });
  }

  /** Start records of the step's calls, with the held rows before them in the same transaction. */
  startCalls(runId: string, starts: ReadonlyArray<ToolStart>): Effect.Effect<void, LedgerError, AgentRunStore> {
    return this.withHeld((held) => Effect.flatMap(AgentRunStore, (store) => store.startCalls(runId, starts, held)));
  }

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
    input: LedgerWriteInput & { readonly after: number; readonly withStart?: true },
  ): Effect.Effect<LedgerReply<T>, never, AgentRunStore> {
    if (input.withStart === true && this.held === undefined)
      return Effect.sync(() => {
        const events = numbered(input.events, input.after + 1);
        this.held = { events, transcript: input.transcript, busy: false };
        return { type, lastSequence: input.after + events.length } as Reply<T>;
      });
    return orLedgerFailed(
      Effect.gen(this, function* () {
        const store = yield* AgentRunStore;
        const events = numbered(input.events, input.after + 1);
        yield* this.withHeld((held) =>
          store.appendEvents(input.runId, held.length === 0 ? events : [...held, ...events]),
        );
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
        yield* this.withHeld((held) =>
          store.appendEvents(
            input.runId,
            held.length === 0 ? records.events : [...held, ...records.events],
            records.receipts,
          ),
        );
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
        yield* this.withHeld((held) =>
          store.finishRun(input.runId, {
            sequence,
            events: [...held, ...events],
            receipts: unsettled.receipts,
            terminal: fitTerminal(input.terminal, this.wiring.payloadCapBytes),
            failureDetail: input.detail,
          }),
        );
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
