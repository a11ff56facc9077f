import type { IncomingMessage, ServerResponse } from "node:http";
import * as Effect from "effect/Effect";
import {
  type ApprovalRecord,
  type ExecutionReceipt,
  type LedgerEvent,
  LoopEvent,
  type RunRecord,
} from "../../domain/index.js";
import { AgentRunStore, type ToolStartRecord } from "../../persistence/AgentRunStore.js";
import { listApprovalsIfReadable } from "../../persistence/approvals.js";
import type { RuntimeServices } from "../../runtime/AgentRuntime.js";

/**
 * Server-sent events for web UIs:
 * `GET /runs/:runId/events` streams the run's LoopEvents, read FROM THE LEDGER, each with
 * `id: <ledger sequence>`. A client that reconnects with `Last-Event-ID` gets exactly the events of
 * the rows after that sequence: nothing lost, nothing twice. The stream follows new rows until the
 * terminal row (`final` then `done`) and then ends; it is bounded by `maxStreamMs`.
 *
 * Row → LoopEvents: tool_call → tool_call (proposed, not started); tool_result → tool_result (with
 * the receipt's reason and the recorded output); assistant_output with role commentary →
 * commentary; terminal → final + done (same id, one write); other rows yield nothing. Each frame is
 * `id: <sequence>\ndata: <LoopEvent JSON>\n\n` (no `event:` line, so an EventSource's `onmessage`
 * sees every event; `type` is in the data).
 *
 * Three kinds of event are not rows of the run's event table, so their frames carry no `id:` line
 * (the client's last id stays the last row's, and a reconnect loses none of the rows):
 * `approval_requested` (from the run's approval requests, after the call's tool_call and before
 * its result), `tool_started` (from the call's durable start record, once it exists) and
 * `text_delta` (only while the run is driven by this process's runtime, from the run's own
 * events; the step's `commentary` or the `final` is the whole text, and is what a reconnect gets).
 * A reconnect is told again of a call that still waits for approval or still runs.
 */

export interface SseRuntime {
  run<A, E>(effect: Effect.Effect<A, E, RuntimeServices>): Promise<A>;
  /** The runtime's registry of active runs: a change wakes the stream before the next poll. */
  readonly registry?: { subscribe(listener: () => void): { unsubscribe(): void } };
  /**
   * The events of a run this process drives now (AgentRuntime's `liveEvents`): where the stream's
   * `text_delta` frames come from, and what wakes it before the next poll.
   */
  readonly liveEvents?: (runId: string) => AsyncIterable<LoopEvent> | undefined;
}

export interface SseOptions {
  readonly runtime: SseRuntime;
  /** How often the ledger is read while the run is open (default 100 ms), unless `changes` announces it. */
  readonly pollIntervalMs?: number;
  /**
   * The ledger's own announcements of appended rows (PostgreSQL, see host/serve/ledgerChanges.ts):
   * the run's rows are read when one names the run (or any run), and never on a poll.
   */
  readonly changes?: {
    readonly subscribe: (listener: (runId: string | undefined) => void) => () => void;
  };
  /** The longest a stream stays open (default 10 minutes); then it ends, and the client may resume. */
  readonly maxStreamMs?: number;
  /** A comment line this often keeps proxies from closing an idle stream (default 15 s). */
  readonly heartbeatMs?: number;
}

export const SSE_PATH = /^\/runs\/([^/]+)\/events\/?$/;

type Payload = Record<string, unknown>;
const asPayload = (value: unknown): Payload =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Payload) : {};
const text = (value: unknown, fallback = "") => (typeof value === "string" ? value : fallback);
const step = (value: unknown) => (typeof value === "number" && Number.isInteger(value) ? value : 0);

/** The LoopEvents one ledger row stands for (none for rows a host never sees). */
export function ledgerRowToLoopEvents(
  run: Pick<RunRecord, "runId" | "traceId">,
  row: LedgerEvent,
  receipts: ReadonlyArray<ExecutionReceipt> = [],
): LoopEvent[] {
  const payload = asPayload(row.payload);
  const runId = run.runId;
  const candidates: unknown[] = [];
  switch (row.type) {
    case "tool_call":
      candidates.push({
        type: "tool_call",
        runId,
        step: step(payload.step),
        callId: text(payload.callId),
        toolName: text(payload.toolName),
        arguments: payload.arguments ?? {},
      });
      break;
    case "tool_result": {
      const callId = text(payload.callId);
      const reason = receipts.find((receipt) => receipt.callId === callId)?.reason;
      candidates.push({
        type: "tool_result",
        runId,
        step: step(payload.step),
        callId,
        toolName: text(payload.toolName),
        status: payload.status ?? receipts.find((receipt) => receipt.callId === callId)?.status,
        ...(reason ? { reason } : {}),
        ...(payload.output !== undefined ? { output: payload.output } : {}),
      });
      break;
    }
    case "assistant_output":
      if (payload.role === "commentary") {
        candidates.push({ type: "commentary", runId, step: step(payload.step), text: text(payload.text) });
      }
      break;
    case "terminal":
      candidates.push(
        {
          type: "final",
          runId,
          text: text(payload.finalText, "(the final text was too large for the ledger)"),
          terminalState: payload.terminalState,
        },
        {
          type: "done",
          runId,
          traceId: run.traceId ?? "",
          terminalState: payload.terminalState,
          reason: payload.reason,
        },
      );
      break;
    default:
      break;
  }
  return candidates.flatMap((candidate) => {
    const parsed = LoopEvent.safeParse(candidate);
    return parsed.success ? [parsed.data] : [];
  });
}

/** One SSE frame; without `id` for an event that is not a ledger row. */
export const sseFrame = (id: number | undefined, event: LoopEvent): string =>
  `${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(event)}\n\n`;

function lastEventIdOf(request: IncomingMessage, url: URL): number {
  const header = request.headers["last-event-id"];
  const raw = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get("lastEventId") ?? "";
  const value = Number.parseInt(raw, 10);
  return Number.isFinite(value) && value > 0 ? value : 0;
}

const readLedger = (runId: string) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    const run = yield* store.getRun(runId);
    if (!run) return undefined;
    const events = yield* store.listRunEvents(runId);
    const calls = events.some((event) => event.type === "tool_call");
    const receipts = events.some((event) => event.type === "tool_result") ? yield* store.listReceipts(runId) : [];
    const starts: ReadonlyArray<ToolStartRecord> = calls ? yield* store.listStarts(runId) : [];
    // A reader without SQL access (the serve command's) has the rows and starts, not the approvals.
    const approvals: ReadonlyArray<ApprovalRecord> = calls ? yield* listApprovalsIfReadable(runId) : [];
    return { run, events, receipts, starts, approvals };
  });

type Ledger = NonNullable<Effect.Effect.Success<ReturnType<typeof readLedger>>>;

/**
 * What a connection has been told of the calls whose tool_call row it was sent: their approval
 * requests and their starts, each once, after the call's row and before its result.
 */
class CallNotices {
  /** Calls sent as tool_call and without a result sent yet, in row order. */
  private readonly open = new Map<string, { readonly step: number; readonly toolName: string }>();
  private readonly asked = new Set<string>();
  private readonly started = new Set<string>();

  constructor(private readonly runId: string) {}

  /** Notes a row about to be sent. */
  note(row: LedgerEvent): void {
    const payload = asPayload(row.payload);
    const callId = text(payload.callId);
    if (row.type === "tool_call") this.open.set(callId, { step: step(payload.step), toolName: text(payload.toolName) });
    if (row.type === "tool_result") this.open.delete(callId);
  }

  /** The approval requests and starts of open calls not yet told, in call order. */
  due(ledger: Ledger): LoopEvent[] {
    const events: LoopEvent[] = [];
    for (const [callId, call] of this.open) {
      const request = ledger.approvals.find((approval) => approval.callId === callId);
      if (request && !this.asked.has(callId)) {
        this.asked.add(callId);
        events.push({
          type: "approval_requested",
          runId: this.runId,
          step: call.step,
          callId,
          toolName: call.toolName,
          arguments: request.arguments,
          reason: request.reason,
        });
      }
      if (!this.started.has(callId) && ledger.starts.some((start) => start.callId === callId)) {
        this.started.add(callId);
        events.push({ type: "tool_started", runId: this.runId, step: call.step, callId, toolName: call.toolName });
      }
    }
    return events;
  }
}

/** Steps whose whole text a row holds: their deltas are not worth sending any more. */
const textSteps = (ledger: Ledger): Set<number> =>
  new Set(
    ledger.events.filter((row) => row.type === "assistant_output").map((row) => step(asPayload(row.payload).step)),
  );

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/**
 * A node:http request listener. Use it as the server's handler or call it from one; it answers
 * `GET /runs/:runId/events` and 404s everything else (`handles` says which requests it takes).
 */
export function sseHandler(options: SseOptions) {
  const pollIntervalMs = options.pollIntervalMs ?? 100;
  const maxStreamMs = options.maxStreamMs ?? 10 * 60_000;
  const heartbeatMs = options.heartbeatMs ?? 15_000;

  const stream = async (request: IncomingMessage, response: ServerResponse, runId: string, url: URL) => {
    let ledger = await options.runtime.run(readLedger(runId));
    if (!ledger) {
      json(response, 404, { error: `no run ${runId}` });
      return;
    }
    let last = lastEventIdOf(request, url);
    let closed = false;
    let wake: (() => void) | undefined;
    // Set by an announcement that comes while the rows are being read: read once more, do not wait.
    // Set at first too: rows appended before the subscription below were not announced to it.
    let announced = options.changes !== undefined;
    const wakeUp = () => wake?.();
    const unsubscribe = options.changes?.subscribe((changed) => {
      if (changed !== undefined && changed !== runId) return;
      announced = true;
      wakeUp();
    });
    // The response's `close` is the connection's (a request's fires once its body is read).
    response.on("close", () => {
      closed = true;
      wakeUp();
    });
    const registry = options.runtime.registry?.subscribe(wakeUp);
    const heartbeat = setInterval(() => response.write(": keep-alive\n\n"), heartbeatMs);
    const deadline = setTimeout(() => {
      closed = true;
      wakeUp();
    }, maxStreamMs);
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    response.flushHeaders();
    const notices = new CallNotices(runId);
    const write = (frames: string) => {
      if (frames.length > 0 && !closed) response.write(frames);
    };
    // The run's own events, while this process drives it: deltas are written as they come, and
    // any other event means a new row or record, so the ledger is read again at once.
    const live = options.runtime.liveEvents?.(runId);
    let doneText = textSteps(ledger);
    let following = true;
    const followLive = async () => {
      if (!live) return;
      for await (const event of live) {
        if (closed || !following) break;
        if (event.type !== "text_delta") wakeUp();
        else if (!doneText.has(event.step)) write(sseFrame(undefined, event));
      }
    };
    const liveDone = followLive().catch(() => undefined);
    try {
      while (!closed) {
        let ended = false;
        let frames = "";
        for (const row of ledger.events) {
          if (row.sequence <= last) {
            notices.note(row);
            continue;
          }
          // A call's approval request and start come before any later row (they happened first).
          if (row.type !== "tool_call")
            frames += notices
              .due(ledger)
              .map((event) => sseFrame(undefined, event))
              .join("");
          notices.note(row);
          const events = ledgerRowToLoopEvents(ledger.run, row, ledger.receipts);
          frames += events.map((event) => sseFrame(row.sequence, event)).join("");
          last = row.sequence;
          if (row.type === "terminal") ended = true;
        }
        if (!ended)
          frames += notices
            .due(ledger)
            .map((event) => sseFrame(undefined, event))
            .join("");
        write(frames);
        // A closed run whose rows are all sent (or were sent before the client resumed) is over.
        if (ended || ledger.run.terminalState !== "running") break;
        if (!announced) {
          await new Promise<void>((resolve) => {
            const timer = options.changes ? undefined : setTimeout(resolve, pollIntervalMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        wake = undefined;
        if (closed) break;
        announced = false;
        ledger = (await options.runtime.run(readLedger(runId))) ?? ledger;
        doneText = textSteps(ledger);
      }
    } finally {
      following = false;
      void liveDone;
      clearInterval(heartbeat);
      clearTimeout(deadline);
      registry?.unsubscribe();
      unsubscribe?.();
      response.end();
    }
  };

  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const match = SSE_PATH.exec(url.pathname);
    if (!match) {
      json(response, 404, { error: "not found" });
      return;
    }
    if (request.method !== "GET") {
      response.setHeader("allow", "GET");
      json(response, 405, { error: "method not allowed" });
      return;
    }
    let runId: string;
    try {
      runId = decodeURIComponent(match[1]!);
    } catch {
      json(response, 400, { error: "the run id in the address is not valid URI encoding" });
      return;
    }
    stream(request, response, runId, url).catch(() => {
      // The ledger could not be read: one line, no internals.
      if (!response.headersSent) json(response, 500, { error: "the run's events cannot be read now" });
      else response.end();
    });
  };
  return Object.assign(handler, {
    handles: (request: IncomingMessage) => SSE_PATH.test(new URL(request.url ?? "/", "http://localhost").pathname),
  });
}
