import * as Effect from "effect/Effect";
import type { LedgerEvent, TerminalPayload } from "../../domain/index.js";
import type { LedgerError } from "../../persistence/AgentRunStore.js";
import { type EndedWindow, LedgerReads } from "../../persistence/LedgerReads.js";
import { METRICS, type MetricInfo, RUN_DURATION_BUCKETS, RUN_STEPS_BUCKETS, type RunEndFacts } from "./metrics.js";
import { emptyFamily, type HistogramSeries, type MetricFamily, type ValueSeries, withCatalogue } from "./prometheus.js";

/**
 * The run-end facts behind the metrics, derived the same way from a live run (its result and
 * ledger rows) and from the ledger alone (the CLI: a process that never saw the runs).
 */

export const PROTOCOL_INVALID_CODE = "tool_finish_without_parsed_calls";

type Verification = NonNullable<TerminalPayload["verification"]>;

export interface RunEndInput {
  readonly terminalState: string;
  readonly reason: string;
  readonly steps: number;
  readonly correctionTurns: number;
  readonly verification?: Verification | undefined;
  readonly evidenceMode: string;
  readonly toolCalls: number;
  readonly protocolInvalid: number;
  readonly durationSeconds: number | null;
}

/**
 * One run's contribution. `receipt_missing` / `claim_without_receipt` count from the terminal
 * reason or from the recorded verdict, so receiptVerification `observe` (which reports
 * `completed`) still counts what the verifier found.
 */
export function runEndFacts(input: RunEndInput): RunEndFacts {
  const reasons = new Set([input.reason, input.verification?.reason]);
  return {
    terminalState: input.terminalState,
    reason: input.reason,
    evidenceMode: input.evidenceMode,
    toolCalls: input.toolCalls,
    protocolInvalid: input.protocolInvalid,
    receiptMissing: reasons.has("receipt_missing"),
    claimMismatch: reasons.has("claim_without_receipt"),
    correctionTurns: input.correctionTurns,
    ledgerWriteFailed: input.reason === "ledger_write_failed",
    steps: input.steps,
    durationSeconds: input.durationSeconds,
  };
}

export interface EventFacts {
  toolCalls: number;
  protocolInvalid: number;
  terminal: TerminalPayload | undefined;
}

export const noEventFacts = (): EventFacts => ({ toolCalls: 0, protocolInvalid: 0, terminal: undefined });

/** Adds one event (a ledger row, or a row a live run has just written) to the facts. */
export function addEventFact(facts: EventFacts, event: Pick<LedgerEvent, "type" | "payload">): void {
  if (event.type === "tool_call") facts.toolCalls += 1;
  if (event.type === "terminal") facts.terminal = event.payload as unknown as TerminalPayload;
  if (event.type === "provider_anomaly") {
    const payload = event.payload;
    const code =
      payload !== null && typeof payload === "object" && !Array.isArray(payload)
        ? (payload as Record<string, unknown>).code
        : undefined;
    if (code === PROTOCOL_INVALID_CODE) facts.protocolInvalid += 1;
  }
}

/** Tool calls, protocol-invalid anomalies and the terminal payload of one run's events. */
export function eventFacts(events: ReadonlyArray<Pick<LedgerEvent, "type" | "payload">>): Readonly<EventFacts> {
  const facts = noEventFacts();
  for (const event of events) addEventFact(facts, event);
  return facts;
}

const seconds = (from: string, to: string | null): number | null => {
  if (!to) return null;
  const span = (Date.parse(to) - Date.parse(from)) / 1000;
  return Number.isFinite(span) && span >= 0 ? span : null;
};

/** A closed run as the ledger holds it, with its facts. */
export interface LedgerRunFacts extends RunEndFacts {
  readonly runId: string;
  readonly traceId: string | null;
  readonly sessionId: string;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly contract: { readonly evidenceMode?: string; readonly requiredToolNames?: ReadonlyArray<string> };
}

const parseJson = <A>(text: string | null, fallback: A): A => {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as A;
  } catch {
    return fallback;
  }
};

/** Every closed run (optionally: ended within a window) with its facts. */
export const loadRunFacts = (
  window: EndedWindow = {},
): Effect.Effect<ReadonlyArray<LedgerRunFacts>, LedgerError, LedgerReads> =>
  Effect.gen(function* () {
    const reads = yield* LedgerReads;
    const rows = yield* reads.closedRuns(window, PROTOCOL_INVALID_CODE);
    return rows.map((row): LedgerRunFacts => {
      const terminal = parseJson<Partial<TerminalPayload>>(row.terminalJson, {});
      const contract = parseJson<LedgerRunFacts["contract"]>(row.contractJson, {});
      const facts = runEndFacts({
        terminalState: row.terminalState,
        reason: terminal.reason ?? row.failureCode ?? "unknown",
        steps: terminal.steps ?? 0,
        correctionTurns: terminal.correctionTurns ?? 0,
        verification: terminal.verification,
        evidenceMode: contract.evidenceMode ?? "none",
        toolCalls: row.toolCalls,
        protocolInvalid: row.anomalies,
        durationSeconds: seconds(row.startedAt, row.endedAt),
      });
      return {
        ...facts,
        runId: row.runId,
        traceId: row.traceId,
        sessionId: row.sessionId,
        startedAt: row.startedAt,
        endedAt: row.endedAt,
        contract,
      };
    });
  });

class Tally {
  private readonly series = new Map<string, ValueSeries>();
  add(labels: Readonly<Record<string, string>>, by = 1): void {
    const key = JSON.stringify(Object.entries(labels).sort());
    const previous = this.series.get(key);
    this.series.set(key, { labels, value: (previous?.value ?? 0) + by });
  }
  family(info: MetricInfo, unlabelledZero = info.labels.length === 0): MetricFamily {
    const series = [...this.series.values()];
    if (series.length === 0 && unlabelledZero) series.push({ labels: {}, value: 0 });
    return { name: info.name, help: info.help, type: "counter", series };
  }
}

function histogram(info: MetricInfo, bounds: ReadonlyArray<number>, values: ReadonlyArray<number>): MetricFamily {
  const buckets = [...bounds, Number.POSITIVE_INFINITY].map(
    (bound) => [bound, values.filter((value) => value <= bound).length] as const,
  );
  const series: HistogramSeries = {
    labels: {},
    buckets,
    sum: values.reduce((sum, value) => sum + value, 0),
    count: values.length,
  };
  return { name: info.name, help: info.help, type: "histogram", series: [series] };
}

/** The run-end metric families of `facts`: what live counters would read had they seen every run. */
export function familiesFromRunFacts(facts: ReadonlyArray<RunEndFacts>): MetricFamily[] {
  const runs = new Tally();
  const reasons = new Tally();
  const withoutCalls = new Tally();
  const protocolInvalid = new Tally();
  const receiptMissing = new Tally();
  const claimMismatch = new Tally();
  const corrections = new Tally();
  const ledgerFailed = new Tally();
  for (const run of facts) {
    runs.add({ terminal_state: run.terminalState });
    reasons.add({ terminal_state: run.terminalState, reason: run.reason });
    if (run.toolCalls === 0) withoutCalls.add({});
    if (run.protocolInvalid > 0) protocolInvalid.add({}, run.protocolInvalid);
    if (run.receiptMissing) receiptMissing.add({ evidence_mode: run.evidenceMode });
    if (run.claimMismatch) claimMismatch.add({});
    if (run.correctionTurns > 0) corrections.add({}, run.correctionTurns);
    if (run.ledgerWriteFailed) ledgerFailed.add({});
  }
  return [
    runs.family(METRICS.runs),
    withoutCalls.family(METRICS.terminalWithoutToolCalls),
    protocolInvalid.family(METRICS.providerToolProtocolInvalid),
    receiptMissing.family(METRICS.receiptMissing),
    claimMismatch.family(METRICS.claimReceiptMismatch),
    corrections.family(METRICS.correctionTurn),
    ledgerFailed.family(METRICS.ledgerWriteFailed),
    reasons.family(METRICS.terminalReason),
    histogram(
      METRICS.runDuration,
      RUN_DURATION_BUCKETS,
      facts.flatMap((run) => (run.durationSeconds === null ? [] : [run.durationSeconds])),
    ),
    histogram(
      METRICS.runSteps,
      RUN_STEPS_BUCKETS,
      facts.map((run) => run.steps),
    ),
  ];
}

/** A metric the ledger holds no trace of: the CLI prints its HELP/TYPE and says so. */
const liveOnlyFamily = (info: MetricInfo): MetricFamily => ({
  ...emptyFamily(info),
  help: `${info.help} (live counter only: not recorded in the ledger)`,
  series: [],
});

/**
 * Memory families from `memory_items` as it is now: candidates agentloop created by provenance and
 * current status; `rejected` items as reason `admin_reject`, items still `pending` as
 * `needs_evidence`; items the observe-mode gate marked `would_block`.
 */
const memoryFamilies = Effect.gen(function* () {
  const counts = yield* Effect.flatMap(LedgerReads, (reads) => reads.memoryItemCounts());
  const candidates = new Tally();
  const rejected = new Tally();
  const wouldBlock = new Tally();
  for (const row of counts.candidates) candidates.add({ provenance: row.provenance, status: row.status }, row.count);
  for (const row of counts.rejectedOrPending) {
    rejected.add({ reason: row.status === "rejected" ? "admin_reject" : "needs_evidence" }, row.count);
  }
  if (counts.wouldBlock > 0) wouldBlock.add({}, counts.wouldBlock);
  return [
    candidates.family(METRICS.memoryCandidate),
    rejected.family(METRICS.memoryRejected),
    wouldBlock.family(METRICS.memoryGateWouldBlock),
  ];
});

/** The router's delivery counters, from `agent_channel_deliveries` (when the table exists). */
const deliveryFamilies = Effect.gen(function* () {
  const counts = yield* Effect.flatMap(LedgerReads, (reads) => reads.deliveryCounts());
  const attempts = new Tally();
  for (const row of counts.attempts) attempts.add({ channel: row.channelId, status: row.status }, row.count);
  const undeliverable = new Tally();
  for (const row of counts.undeliverableFinals) undeliverable.add({ channel: row.channelId }, row.count);
  return [
    attempts.family(
      { name: "agent_channel_deliveries_total", type: "counter", help: "channel send attempts by outcome", labels: [] },
      false,
    ),
    undeliverable.family(
      {
        name: "agent_channel_final_undeliverable_total",
        type: "counter",
        help: "final messages no recorded attempt delivered (derived: failed attempts, none sent)",
        labels: [],
      },
      false,
    ),
  ];
});

/** Every metric of the catalogue computed from the ledger file alone (`agentloop metrics`). */
export const ledgerMetricFamilies: Effect.Effect<MetricFamily[], LedgerError, LedgerReads> = Effect.gen(function* () {
  const tables = yield* Effect.flatMap(LedgerReads, (reads) => reads.tableNames());
  const families: MetricFamily[] = [];
  if (tables.has("agent_runs")) families.push(...familiesFromRunFacts(yield* loadRunFacts()));
  if (tables.has("memory_items")) families.push(...(yield* memoryFamilies));
  if (tables.has("agent_channel_deliveries")) families.push(...(yield* deliveryFamilies));
  families.push(liveOnlyFamily(METRICS.historyLegacyFallback), liveOnlyFamily(METRICS.channelProgressSuppressed));
  return withCatalogue(families);
});
