import * as Effect from "effect/Effect";
import { type ExecutionReceipt, type LedgerEvent, type RunRecord, TerminalState } from "../../domain/index.js";
import { AgentRunStore, type RunListFilter } from "../../persistence/AgentRunStore.js";
import { LedgerReads } from "../../persistence/LedgerReads.js";
import { computeHealth, type HealthReport, parseWindow } from "../../services/observability/health.js";
import { ledgerMetricFamilies } from "../../services/observability/ledgerMetrics.js";
import type { MetricFamily } from "../../services/observability/prometheus.js";
import type { RunPath } from "../charts/runPath.js";
import { ledgerPath } from "./ledgerPath.js";

/**
 * What the serve pages show, read from the ledger: plain data for the HTML (views.ts) and the
 * JSON API. Every read goes through AgentRunStore or LedgerReads; nothing here writes.
 */

/** What a ledger read needs; the server is given a function that runs such effects read-only. */
export type LedgerServices = AgentRunStore | LedgerReads;
export type LedgerRead = <A>(effect: Effect.Effect<A, { readonly message: string }, LedgerServices>) => Promise<A>;

export const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 1000;

export interface RunsQuery {
  readonly state?: string;
  readonly reason?: string;
  readonly session?: string;
  /** ISO times (a date alone is its midnight UTC) bounding the runs' start. */
  readonly since?: string;
  readonly until?: string;
  readonly limit: number;
}

export const RUN_STATUSES: ReadonlyArray<string> = ["running", ...TerminalState.options];
const REASON_PATTERN = /^[a-z][a-z0-9_:.-]{0,79}$/;

function isoTime(name: string, text: string): string {
  const time = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(time)) throw new Error(`${name} must be an ISO date or time (got ${JSON.stringify(text)})`);
  return new Date(time).toISOString();
}

/** The runs list's filters from a query string; throws one line on a value that cannot be meant. */
export function parseRunsQuery(params: URLSearchParams): RunsQuery {
  const value = (name: string) => {
    const raw = params.get(name)?.trim();
    return raw ? raw : undefined;
  };
  const state = value("state");
  if (state !== undefined && !RUN_STATUSES.includes(state)) {
    throw new Error(`state must be one of ${RUN_STATUSES.join(", ")} (got ${JSON.stringify(state)})`);
  }
  const reason = value("reason");
  if (reason !== undefined && !REASON_PATTERN.test(reason)) {
    throw new Error(`reason must be a reason code like max_steps_reached (got ${JSON.stringify(reason)})`);
  }
  const limitText = value("limit");
  const limit = limitText === undefined ? DEFAULT_LIST_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new Error(`limit must be a whole number from 1 to ${MAX_LIST_LIMIT} (got ${JSON.stringify(limitText)})`);
  }
  const since = value("since");
  const until = value("until");
  const session = value("session");
  return {
    ...(state ? { state } : {}),
    ...(reason ? { reason } : {}),
    ...(session ? { session } : {}),
    ...(since ? { since: isoTime("since", since) } : {}),
    ...(until ? { until: isoTime("until", until) } : {}),
    limit,
  };
}

export interface RunSummary {
  readonly runId: string;
  readonly sessionId: string;
  readonly traceId: string | null;
  readonly state: string;
  readonly reason: string | null;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly durationMs: number | null;
  readonly steps: number | null;
  readonly events: number;
  /** For a running run, the machine state its ledger shows it in. */
  readonly current: string | null;
}

function summaryOf(run: RunRecord, events: ReadonlyArray<LedgerEvent>): RunSummary {
  const terminal = events.find((event) => event.type === "terminal")?.payload as { steps?: unknown } | undefined;
  return {
    runId: run.runId,
    sessionId: run.sessionId,
    traceId: run.traceId,
    state: run.terminalState,
    reason: run.failureCode,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    durationMs: run.endedAt ? Date.parse(run.endedAt) - Date.parse(run.startedAt) : null,
    steps: typeof terminal?.steps === "number" ? terminal.steps : null,
    events: events.length,
    current: run.terminalState === "running" ? (ledgerPath(run, events).states.at(-1) ?? null) : null,
  };
}

/** The runs matching `query`, newest first. */
export const listRunSummaries = (query: RunsQuery) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    const filter: RunListFilter = {
      ...(query.session ? { sessionId: query.session } : {}),
      ...(query.state ? { terminalState: query.state } : {}),
      ...(query.reason ? { reason: query.reason } : {}),
      ...(query.since ? { startedAfter: query.since } : {}),
      ...(query.until ? { startedBefore: query.until } : {}),
      newestFirst: true,
      limit: query.limit,
    };
    const runs = yield* store.listRuns(filter);
    const ledgers = yield* store.loadRunLedgers(runs);
    return ledgers.map(({ run, events }) => summaryOf(run, events));
  });

export interface RunDetail {
  readonly run: RunRecord;
  readonly events: ReadonlyArray<LedgerEvent>;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
  readonly path: RunPath;
}

/** One run with its timeline, receipts and machine path; undefined when the ledger has no such run. */
export const loadRunDetail = (runId: string) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    const run = yield* store.getRun(runId);
    if (!run) return undefined;
    const events = yield* store.listRunEvents(runId);
    const receipts = yield* store.listReceipts(runId);
    const detail: RunDetail = { run, events, receipts, path: ledgerPath(run, events) };
    return detail;
  });

/**
 * A cheap fingerprint of the whole ledger: it changes whenever a run starts, a row is appended
 * (event ids only grow) or a run closes. The live stream reads only this until it changes.
 */
export const ledgerSignature = Effect.flatMap(LedgerReads, (reads) => reads.signature());

export interface ObservabilityView {
  readonly windowText: string;
  readonly families: ReadonlyArray<MetricFamily>;
  readonly health: HealthReport;
}

/** The window of the health checks from a query string (default 1h); throws one line when unusable. */
export function parseHealthWindow(params: URLSearchParams): { readonly text: string; readonly ms: number } {
  const text = params.get("window")?.trim() || "1h";
  return { text, ms: parseWindow(text) };
}

/** `agentloop metrics` and `agentloop health` in one read: the same functions, the same numbers. */
export const loadObservability = (window: { readonly text: string; readonly ms: number }, now?: Date) =>
  Effect.gen(function* () {
    const families = yield* ledgerMetricFamilies;
    const health = yield* computeHealth({ windowMs: window.ms, ...(now ? { now } : {}) });
    const view: ObservabilityView = { windowText: window.text, families, health };
    return view;
  });
