import type { IncomingMessage, ServerResponse } from "node:http";
import { Effect } from "effect";
import { type ExecutionReceipt, type LedgerEvent, LoopEvent, type RunRecord } from "../../domain/index.js";
import { AgentRunStore } from "../../persistence/AgentRunStore.js";
import type { RuntimeServices } from "../../runtime/AgentRuntime.js";

/**
 * Server-sent events for web UIs:
 * `GET /runs/:runId/events` streams the run's LoopEvents, read FROM THE LEDGER, each with
 * `id: <ledger sequence>`. A client that reconnects with `Last-Event-ID` gets exactly the events of
 * the rows after that sequence: nothing lost, nothing twice. The stream follows new rows until the
 * terminal row (`final` then `done`) and then ends; it is bounded by `maxStreamMs`.
 *
 * Row → LoopEvents: tool_call → tool_started; tool_result → tool_result (with the receipt's reason);
 * assistant_output with role commentary → commentary; terminal → final + done (same id, one write);
 * other rows yield nothing. Each frame is `id: <sequence>\ndata: <LoopEvent JSON>\n\n` (no `event:`
 * line, so an EventSource's `onmessage` sees every event; `type` is in the data).
 */

export interface SseRuntime {
  run<A, E>(effect: Effect.Effect<A, E, RuntimeServices>): Promise<A>;
  /** The runtime's registry of active runs: a change wakes the stream before the next poll. */
  readonly registry?: { subscribe(listener: () => void): { unsubscribe(): void } };
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
        type: "tool_started",
        runId,
        step: step(payload.step),
        callId: text(payload.callId),
        toolName: text(payload.toolName),
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

/** One SSE frame. */
export const sseFrame = (id: number, event: LoopEvent): string => `id: ${id}\ndata: ${JSON.stringify(event)}\n\n`;

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
    const receipts = events.some((event) => event.type === "tool_result") ? yield* store.listReceipts(runId) : [];
    return { run, events, receipts };
  });

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
    try {
      while (!closed) {
        let ended = false;
        for (const row of ledger.events) {
          if (row.sequence <= last) continue;
          const events = ledgerRowToLoopEvents(ledger.run, row, ledger.receipts);
          if (events.length > 0) response.write(events.map((event) => sseFrame(row.sequence, event)).join(""));
          last = row.sequence;
          if (row.type === "terminal") ended = true;
        }
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
      }
    } finally {
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
