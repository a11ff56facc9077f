import * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";
import * as MetricBoundaries from "effect/MetricBoundaries";
import * as MetricKey from "effect/MetricKey";
import * as MetricLabel from "effect/MetricLabel";
import type { EvidenceMode, MemoryItem } from "../../domain/index.js";

/**
 * The run metrics (plus ledger write failures, terminal reasons and the run duration /
 * steps histograms) as Effect Metrics. They live in Effect's process-global registry: every
 * runtime of the process adds to the same series, so readers compare deltas.
 *
 * Each counter moves exactly when its condition happens:
 * - at the end of a run (`recordRunEnded`, called by the runtime from the result and the ledger),
 * - when a session turn's history falls back to visible turns (`recordHistoryLegacyFallback`),
 * - when consolidation creates or gates memory candidates (`recordMemoryCandidates`),
 * - when a channel's policy keeps progress from it (`recordProgressSuppressed`, the router's call).
 */

export interface MetricInfo {
  readonly name: string;
  readonly type: "counter" | "histogram";
  readonly help: string;
  /** The label names of its series (empty: one unlabelled series). */
  readonly labels: ReadonlyArray<string>;
}

const counterInfo = (name: string, help: string, labels: ReadonlyArray<string> = []): MetricInfo => ({
  name,
  type: "counter",
  help,
  labels,
});

/** Every metric agentloop defines, in exposition order (HELP text = the Effect metric's description). */
export const METRICS = {
  runs: counterInfo("agent_runs_total", "runs that reached a terminal state, by terminal_state", ["terminal_state"]),
  terminalWithoutToolCalls: counterInfo(
    "agent_terminal_without_tool_calls_total",
    "runs that reached a terminal state without a single tool call",
  ),
  providerToolProtocolInvalid: counterInfo(
    "agent_provider_tool_protocol_invalid_total",
    "provider turns that finished for tool calls without a parseable call (anomaly tool_finish_without_parsed_calls)",
  ),
  receiptMissing: counterInfo(
    "agent_receipt_missing_total",
    "runs whose verifier found required receipts missing (also under receiptVerification observe), by evidence_mode",
    ["evidence_mode"],
  ),
  claimReceiptMismatch: counterInfo(
    "agent_claim_receipt_mismatch_total",
    "runs whose answer claimed an action no receipt backs (also under receiptVerification observe)",
  ),
  correctionTurn: counterInfo("agent_correction_turn_total", "correction turns the runtime asked the model for"),
  historyLegacyFallback: counterInfo(
    "agent_history_legacy_fallback_total",
    "session turns whose history fell back to visible turns that have no ledger",
  ),
  memoryCandidate: counterInfo(
    "agent_memory_candidate_total",
    "memory items consolidation created, by provenance and status",
    ["provenance", "status"],
  ),
  memoryRejected: counterInfo(
    "agent_memory_rejected_total",
    "memory candidates kept from active memory, by reason (needs_evidence: held pending by the gate; admin_reject: rejected by `agentloop memory reject`)",
    ["reason"],
  ),
  // The router defines the same counter (same name, description and options: one series set).
  channelProgressSuppressed: counterInfo(
    "agent_channel_progress_suppressed_total",
    "progress updates a channel's delivery policy did not send",
  ),
  ledgerWriteFailed: counterInfo(
    "agent_ledger_write_failed_total",
    "runs that ended failed/ledger_write_failed (the ledger refused or could not store a write)",
  ),
  terminalReason: counterInfo("agent_terminal_reason_total", "runs by terminal_state and reason code", [
    "terminal_state",
    "reason",
  ]),
  memoryGateWouldBlock: counterInfo(
    "agent_memory_gate_would_block_total",
    "memory candidates the gate would have held pending (memoryGate observe)",
  ),
  runDuration: {
    name: "agent_run_duration_seconds",
    type: "histogram",
    help: "wall time from startRun to the terminal state, in seconds",
    labels: [],
  } satisfies MetricInfo,
  runSteps: {
    name: "agent_run_steps",
    type: "histogram",
    help: "model steps a run took before its terminal state",
    labels: [],
  } satisfies MetricInfo,
} as const;

export const RUN_DURATION_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600] as const;
export const RUN_STEPS_BUCKETS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128] as const;

/** Each counter's key, to make its tagged series from (see `tagged`). */
const counterKeys = new WeakMap<Metric.Metric.Counter<number>, MetricKey.MetricKey.Counter<number>>();

const counter = (info: MetricInfo): Metric.Metric.Counter<number> => {
  const key = MetricKey.counter(info.name, { description: info.help, incremental: true });
  const metric = Metric.fromMetricKey(key);
  counterKeys.set(metric, key);
  return metric;
};

export const runsTotal = counter(METRICS.runs);
export const terminalWithoutToolCallsTotal = counter(METRICS.terminalWithoutToolCalls);
export const providerToolProtocolInvalidTotal = counter(METRICS.providerToolProtocolInvalid);
export const receiptMissingTotal = counter(METRICS.receiptMissing);
export const claimReceiptMismatchTotal = counter(METRICS.claimReceiptMismatch);
export const correctionTurnTotal = counter(METRICS.correctionTurn);
export const historyLegacyFallbackTotal = counter(METRICS.historyLegacyFallback);
export const memoryCandidateTotal = counter(METRICS.memoryCandidate);
export const memoryRejectedTotal = counter(METRICS.memoryRejected);
export const channelProgressSuppressedTotal = counter(METRICS.channelProgressSuppressed);
export const ledgerWriteFailedTotal = counter(METRICS.ledgerWriteFailed);
export const terminalReasonTotal = counter(METRICS.terminalReason);
export const memoryGateWouldBlockTotal = counter(METRICS.memoryGateWouldBlock);
export const runDurationSeconds = Metric.histogram(
  METRICS.runDuration.name,
  MetricBoundaries.fromIterable(RUN_DURATION_BUCKETS),
  METRICS.runDuration.help,
);
export const runStepsHistogram = Metric.histogram(
  METRICS.runSteps.name,
  MetricBoundaries.fromIterable(RUN_STEPS_BUCKETS),
  METRICS.runSteps.help,
);

/**
 * A counter's series for a set of tags, made once per set: `Metric.tagged` builds a new key on
 * every update (and the registry hashes it to find the series), which was most of the metric work
 * at the end of each run. The key is the one `Metric.tagged` would build, tags in the same order,
 * so the series are the same. The sets are the label values the registry keeps a series for anyway.
 */
const taggedSeries = new WeakMap<Metric.Metric.Counter<number>, Map<string, Metric.Metric.Counter<number>>>();

const tagged = (metric: Metric.Metric.Counter<number>, tags: Readonly<Record<string, string>>) => {
  const entries = Object.entries(tags);
  const key = counterKeys.get(metric);
  if (entries.length === 0 || key === undefined) return metric;
  let series = taggedSeries.get(metric);
  if (series === undefined) {
    series = new Map();
    taggedSeries.set(metric, series);
  }
  const id = entries.map(([name, value]) => `${name}\u0000${value}`).join("\u0001");
  let found = series.get(id);
  if (found === undefined) {
    found = Metric.fromMetricKey(
      MetricKey.taggedWithLabels(
        key,
        entries.map(([name, value]) => MetricLabel.make(name, value)),
      ),
    );
    series.set(id, found);
  }
  return found;
};

const add = (metric: Metric.Metric.Counter<number>, by: number, tags: Readonly<Record<string, string>> = {}) =>
  by > 0 ? Metric.incrementBy(tagged(metric, tags), by) : Effect.void;

/** What the end of one run contributes to the metrics (see `ledgerMetrics.observeRun`). */
export interface RunEndFacts {
  readonly terminalState: string;
  readonly reason: string;
  readonly evidenceMode: EvidenceMode | string;
  readonly toolCalls: number;
  /** provider_anomaly rows with code tool_finish_without_parsed_calls. */
  readonly protocolInvalid: number;
  readonly receiptMissing: boolean;
  readonly claimMismatch: boolean;
  readonly correctionTurns: number;
  readonly ledgerWriteFailed: boolean;
  readonly steps: number;
  /** Null when unknown (a ledger row without an end time). */
  readonly durationSeconds: number | null;
}

/** Every run-end metric, once per run. */
export const recordRunEnded = (facts: RunEndFacts): Effect.Effect<void> =>
  Effect.all(
    [
      add(runsTotal, 1, { terminal_state: facts.terminalState }),
      add(terminalReasonTotal, 1, { terminal_state: facts.terminalState, reason: facts.reason }),
      add(terminalWithoutToolCallsTotal, facts.toolCalls === 0 ? 1 : 0),
      add(providerToolProtocolInvalidTotal, facts.protocolInvalid),
      add(receiptMissingTotal, facts.receiptMissing ? 1 : 0, { evidence_mode: facts.evidenceMode }),
      add(claimReceiptMismatchTotal, facts.claimMismatch ? 1 : 0),
      add(correctionTurnTotal, facts.correctionTurns),
      add(ledgerWriteFailedTotal, facts.ledgerWriteFailed ? 1 : 0),
      Metric.update(runStepsHistogram, facts.steps),
      facts.durationSeconds === null ? Effect.void : Metric.update(runDurationSeconds, facts.durationSeconds),
    ],
    { discard: true },
  );

/** A session turn whose history used visible turns without a ledger (SessionHistory.legacyFallback). */
export const recordHistoryLegacyFallback = (): Effect.Effect<void> => add(historyLegacyFallbackTotal, 1);

/**
 * What one consolidation did to memory: each created item by provenance/status; items the gate
 * held `pending` are also `agent_memory_rejected_total{reason="needs_evidence"}`; candidates the
 * gate would have held (observe) are `agent_memory_gate_would_block_total`.
 */
export const recordMemoryCandidates = (
  created: ReadonlyArray<Pick<MemoryItem, "provenance" | "verificationStatus" | "evidence">>,
): Effect.Effect<void> =>
  Effect.forEach(
    created,
    (item) =>
      Effect.all(
        [
          add(memoryCandidateTotal, 1, { provenance: item.provenance, status: item.verificationStatus }),
          add(memoryRejectedTotal, item.verificationStatus === "pending" ? 1 : 0, { reason: "needs_evidence" }),
          add(memoryGateWouldBlockTotal, item.evidence.gate === "would_block" ? 1 : 0),
        ],
        { discard: true },
      ),
    { discard: true },
  );

/** The reasons of `agent_memory_rejected_total` (the ledger-derived families use the same two). */
export type MemoryRejectedReason = "needs_evidence" | "admin_reject";

/**
 * Memory items kept from active memory for `reason` outside consolidation: `admin_reject` when an
 * operator rejects a candidate (`agentloop memory reject`).
 */
export function recordMemoryRejected(reason: MemoryRejectedReason, count = 1): void {
  Effect.runSync(add(memoryRejectedTotal, count, { reason }));
}

/**
 * Progress a channel's delivery policy kept from it (`DeliveryOutput.suppressed`). The router calls
 * this once per delivery actor that ended; `channel` becomes the series' label.
 */
export function recordProgressSuppressed(count: number, channel?: string): void {
  Effect.runSync(add(channelProgressSuppressedTotal, count, channel === undefined ? {} : { channel }));
}
