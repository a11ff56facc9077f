import type * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { errorText } from "../domain/errorText.js";
import type {
  BatchReply,
  EventSink,
  ReceiptVerificationMode,
  RunCommand,
  RunReply,
  SampleOutcome,
  ToolDescriptor,
} from "../domain/index.js";
import type { AgentRunStore, ToolStart } from "../persistence/AgentRunStore.js";
import { judgeClaims } from "../services/claimJudge.js";
import { type Provider, terminalReasonFor } from "../services/providers/Provider.js";
import { type RetryPolicy, withProviderRetry } from "../services/providers/retry.js";
import { planCalls } from "../services/tools/callPlanner.js";
import { type AnyToolDefinition, describeTool } from "../services/tools/Tool.js";
import { callIdsOf } from "../services/transcriptProjector.js";
import { readClaimsYielding, uncertainSentencesYielding, verifyAnswer } from "../services/verification.js";
import type { ApprovalDesk } from "./approvalDesk.js";
import { orLedgerFailed, RunLedgerWrites } from "./runLedgerWrites.js";
import type { TranscriptStore } from "./stores.js";
import { type CallBook, callBook, executeCall, LazyAbort } from "./toolExecution.js";

/**
 * The I/O of one run: one handler per command the run machine (or its tool batch) sends, in a
 * table whose type names every command, so a command without a handler does not compile. The
 * bridge (commandBridge.ts) forks each handler in the run's scope and delivers its answer. No
 * handler fails: an expected failure (a ledger refusal, a provider error) is an answer the
 * machine decides on, and a defect becomes the answer that stands for it. Rows are numbered
 * after the `after` sequence the command carries; the answer brings the new last one back.
 */

export interface RunWiring {
  readonly runId: string;
  /** The named agent the run is built from, recorded on its row. */
  readonly agentName?: string | null | undefined;
  readonly provider: Provider;
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  readonly allowedTools: ReadonlySet<string>;
  readonly transcript: TranscriptStore;
  readonly retry: RetryPolicy;
  readonly defaultToolTimeoutMs: number;
  readonly now: () => string;
  readonly receiptVerification: ReceiptVerificationMode;
  /** Ask the run's provider about sentences the claim detector was unsure of (off by default). */
  readonly claimJudge?: boolean | undefined;
  /** The run's approvals: its policy, requests, waiting calls and grants. */
  readonly approvals: ApprovalDesk;
  /** The ledger's payload cap, which the terminal row's text is cut to fit (default the ledger's default). */
  readonly payloadCapBytes?: number | undefined;
}

type Reply<T extends RunReply["type"]> = Extract<RunReply, { type: T }>;
type LedgerReply<T extends RunReply["type"]> = Reply<T> | Reply<"LEDGER_FAILED">;
export type CommandOf<K extends RunCommand["type"]> = Extract<RunCommand, { type: K }>;

/** What each command answers: an event for the run, one for the batch that sent it, or nothing. */
export interface CommandReplies {
  readonly OPEN: LedgerReply<"OPENED">;
  readonly SAMPLE: Reply<"SAMPLED">;
  readonly STOP_SAMPLE: undefined;
  readonly RECORD_CALLS: LedgerReply<"CALLS_RECORDED">;
  readonly RECORD_TURN: LedgerReply<"TURN_RECORDED">;
  readonly RECORD_RESULTS: LedgerReply<"RESULTS_RECORDED">;
  readonly VERIFY: Reply<"VERIFIED"> | Reply<"VERIFY_FAILED">;
  readonly FINISH: LedgerReply<"FINISHED">;
  readonly EXECUTE: Extract<BatchReply, { type: "CALL_SETTLED" }> | undefined;
  readonly ABORT: undefined;
  /** A failed request is the run's LEDGER_FAILED, told to the run; the batch hears nothing. */
  readonly REQUEST_APPROVAL: Extract<BatchReply, { type: "APPROVAL_REQUESTED" }> | undefined;
  readonly APPROVAL_CLOSED: undefined;
}

/** What a handler may do besides answering: tell the run or a batch something midway, and own interruptible fibers. */
export interface CommandIO {
  readonly tellRun: (event: RunReply) => void;
  readonly tell: <E>(sink: EventSink<E>, event: E) => void;
  /**
   * Starts the run's interruptible work under a key (`sample`, `tool:<callId>`, `approvals`);
   * work already under the key is interrupted. Stopping the run interrupts what is left.
   */
  readonly fork: <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<unknown, never, R>;
  /** Interrupts the run's work under a key, if any, and waits for it to end. */
  readonly interrupt: (key: string) => Effect.Effect<void>;
}

export type CommandHandlers<R = AgentRunStore | SqlClient.SqlClient> = {
  readonly [K in RunCommand["type"]]: (
    command: CommandOf<K>,
    io: CommandIO,
  ) => Effect.Effect<CommandReplies[K], never, R>;
};

/** The key an interruptible command's fiber runs under (others run to the end unless the run's scope closes). */
export const fiberKeyOf = (command: RunCommand): string | undefined =>
  command.type === "SAMPLE" ? "sample" : command.type === "EXECUTE" ? `tool:${command.planned.call.id}` : undefined;

/**
 * The handlers of one run, as methods: a run holds its table for its whole life, and methods on
 * a prototype cost a run nothing where a table of closures costs each run its own copies.
 */
class RunCommandHandlers implements CommandHandlers {
  private readonly descriptors: ReadonlyArray<ToolDescriptor>;
  /**
   * A new call may not reuse an id the replayed history holds (providers that number their calls
   * repeat ids from turn to turn): planCalls renames such a call `<id>_<n>`.
   */
  private readonly usedCallIds: Set<string>;
  private readonly calls: CallBook;
  private readonly ledger: RunLedgerWrites;

  constructor(private readonly wiring: RunWiring) {
    this.descriptors = wiring.provider.capabilities.toolCalling
      ? [...wiring.tools.values()].filter((tool) => wiring.allowedTools.has(tool.name)).map(describeTool)
      : [];
    this.usedCallIds = callIdsOf(wiring.transcript.getSnapshot().context.messages);
    this.calls = callBook();
    this.ledger = new RunLedgerWrites(wiring, this.calls);
  }

  OPEN(command: CommandOf<"OPEN">) {
    // Before the first sample: a call of a tool the session approved (in any process) asks no more.
    return Effect.zipRight(this.wiring.approvals.adoptSessionGrants(command.sessionId), this.ledger.open(command));
  }

  SAMPLE(command: CommandOf<"SAMPLE">, io: CommandIO): Effect.Effect<Reply<"SAMPLED">> {
    const { wiring, descriptors } = this;
    const { step } = command;
    return wiring.provider
      .sample({
        runId: wiring.runId,
        step,
        messages: wiring.transcript.getSnapshot().context.messages,
        tools: descriptors,
        toolChoice: descriptors.length > 0 ? command.toolChoice : { mode: "none" },
        // Each streamed piece goes to the run, which emits it as `text_delta` while it samples.
        onTextDelta: (delta) => io.tellRun({ type: "TEXT_DELTA", step, delta }),
      })
      .pipe(
        withProviderRetry(wiring.retry),
        Effect.map(
          (response): SampleOutcome => ({
            type: "response",
            text: response.text,
            finishReason: response.finishReason,
            malformed: response.malformedToolCalls,
            anomalies: response.anomalies,
            streamed: response.streamed,
            ...(response.usage ? { usage: response.usage } : {}),
            calls: planCalls(response.toolCalls, {
              tools: wiring.tools,
              allowed: wiring.allowedTools,
              defaultTimeoutMs: wiring.defaultToolTimeoutMs,
              usedCallIds: this.usedCallIds,
              approvalFor: (call, tool) => wiring.approvals.approvalFor(call, tool),
            }),
          }),
        ),
        Effect.catchAll((error) =>
          Effect.succeed<SampleOutcome>({
            type: "failure",
            reason: terminalReasonFor(error),
            message: error.message,
          }),
        ),
        Effect.catchAllDefect((defect) =>
          Effect.succeed<SampleOutcome>({
            type: "failure",
            reason: "provider_error",
            message: `provider actor crashed: ${errorText(defect)}`,
          }),
        ),
        Effect.map((outcome) => ({ type: "SAMPLED" as const, outcome })),
      );
  }

  STOP_SAMPLE(_command: CommandOf<"STOP_SAMPLE">, io: CommandIO) {
    return io.interrupt("sample").pipe(Effect.as(undefined));
  }

  RECORD_CALLS(command: CommandOf<"RECORD_CALLS">) {
    return this.ledger.writeRows("CALLS_RECORDED", command);
  }

  RECORD_TURN(command: CommandOf<"RECORD_TURN">) {
    return this.ledger.writeRows("TURN_RECORDED", command);
  }

  RECORD_RESULTS(command: CommandOf<"RECORD_RESULTS">) {
    return this.ledger.recordResults(command);
  }

  VERIFY(input: CommandOf<"VERIFY">): Effect.Effect<Reply<"VERIFIED"> | Reply<"VERIFY_FAILED">> {
    const { wiring } = this;
    return Effect.gen(function* () {
      if (wiring.receiptVerification === "off")
        return { verdict: "completed", reason: "answered", missing: [] } as const;
      const capabilities = wiring.provider.capabilities;
      // Read in bounded pieces with the event loop let run between them: a long answer must not
      // stall the host's other runs, timers or signal handlers.
      const reading = yield* readClaimsYielding(input.answer);
      const verdict = verifyAnswer({ ...input, capabilities }, reading);
      // The judge can only take a `completed` away: it is asked only then, about the unsure band.
      if (!wiring.claimJudge || verdict.verdict !== "completed") return verdict;
      const unsure = yield* uncertainSentencesYielding(input.answer);
      if (unsure.length === 0) return verdict;
      // Step 0: the judge is not a step of the run (its answer is neither recorded nor shown to the model).
      const judged = yield* judgeClaims(wiring.provider, wiring.runId, 0, unsure);
      return judged.length === 0 ? verdict : verifyAnswer({ ...input, capabilities, judged }, reading);
    }).pipe(
      Effect.map((verdict) => ({ type: "VERIFIED" as const, verdict })),
      Effect.catchAllDefect((defect) => Effect.succeed({ type: "VERIFY_FAILED" as const, detail: errorText(defect) })),
    );
  }

  FINISH(command: CommandOf<"FINISH">) {
    return this.ledger.finish(command);
  }

  EXECUTE(command: CommandOf<"EXECUTE">, io: CommandIO) {
    const abort = new LazyAbort();
    // Whoever asked (the batch, or the run for a call it runs alone) hears that the call started
    // only once its start record is durable, and tells the host.
    const started = (startedAt: string) =>
      io.tell(command.replyTo, { type: "CALL_STARTED", index: command.index, at: Date.now(), startedAt });
    const { tools, now } = this.wiring;
    const { calls, ledger } = this;
    const deps = {
      tools,
      now,
      calls,
      startCalls: (runId: string, starts: ReadonlyArray<ToolStart>) => ledger.startCalls(runId, starts),
    };
    return executeCall(deps, command, abort, started).pipe(
      Effect.map((result) => ({ type: "CALL_SETTLED" as const, index: command.index, at: Date.now(), result })),
      // Interrupted (the batch gave up on the call, or the run stopped): the tool is told.
      Effect.onInterrupt(() => Effect.sync(() => abort.abort())),
    );
  }

  /** The batch has settled the call already (it timed out): its fiber is interrupted, no answer follows. */
  ABORT(command: CommandOf<"ABORT">, io: CommandIO) {
    return io.interrupt(`tool:${command.callId}`).pipe(Effect.as(undefined));
  }

  REQUEST_APPROVAL(command: CommandOf<"REQUEST_APPROVAL">, io: CommandIO) {
    return orLedgerFailed(this.wiring.approvals.request(command, io)).pipe(
      Effect.map((reply) => {
        if (reply.type !== "LEDGER_FAILED") return reply;
        io.tellRun(reply);
        return undefined;
      }),
    );
  }

  APPROVAL_CLOSED(command: CommandOf<"APPROVAL_CLOSED">) {
    return Effect.sync(() => {
      this.wiring.approvals.close(command.callId);
      return undefined;
    });
  }
}

export const commandHandlers = (wiring: RunWiring): CommandHandlers => new RunCommandHandlers(wiring);
