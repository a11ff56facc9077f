import * as Effect from "effect/Effect";
import { STABLE_ID_KEYS } from "../../domain/index.js";
import type { LedgerError } from "../../persistence/AgentRunStore.js";
import { LedgerReads, type OkReceiptRow } from "../../persistence/LedgerReads.js";
import { type LedgerRunFacts, loadRunFacts } from "./ledgerMetrics.js";

/**
 * The alert conditions, computed from the ledger over a time window (runs that ended
 * in it): `agentloop health`. Each check is `ok` or `firing`, with the numbers behind it.
 */

export interface HealthThresholds {
  /** provider_tool_protocol_invalid spike: at least this many anomalies … */
  readonly protocolInvalidMinCount: number;
  /** … and at least this share of the window's runs had one. */
  readonly protocolInvalidRate: number;
  /** Unverified ratio jump: both windows need this many closed runs to compare. */
  readonly unverifiedMinRuns: number;
  /** … and the ratio rose by at least this much (absolute, 0–1) over the previous window. */
  readonly unverifiedJump: number;
}

export const DEFAULT_HEALTH_THRESHOLDS: HealthThresholds = {
  protocolInvalidMinCount: 3,
  protocolInvalidRate: 0.05,
  unverifiedMinRuns: 5,
  unverifiedJump: 0.2,
};

/** Tools whose ok receipts must carry a stable external id (besides a deliver contract's required tools). */
export const DEFAULT_DELIVER_TOOLS: ReadonlyArray<string> = ["send_message"];

export interface HealthOptions {
  readonly windowMs: number;
  /** End of the window (default: now). */
  readonly now?: Date;
  readonly thresholds?: Partial<HealthThresholds>;
  readonly deliverTools?: ReadonlyArray<string>;
}

export type HealthCheckName =
  | "provider_tool_protocol_invalid_spike"
  | "unverified_ratio_jump"
  | "ledger_write_failures"
  | "orphan_replay_items"
  | "deliveries_without_stable_receipt";

export interface HealthCheck {
  readonly name: HealthCheckName;
  readonly status: "ok" | "firing";
  /** One line: the numbers behind the status. */
  readonly summary: string;
  readonly value: number;
  /** Runs that make it fire (at most 20). */
  readonly runIds: ReadonlyArray<string>;
}

export interface HealthReport {
  readonly window: { readonly from: string; readonly to: string; readonly previousFrom: string };
  readonly runs: number;
  readonly checks: ReadonlyArray<HealthCheck>;
  readonly firing: boolean;
}

const UNITS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * The longest health window: the checks compare the window with the one before it, and both must
 * start at a date a timestamp can hold (a larger one would be `Invalid time value`).
 */
export const MAX_WINDOW_DAYS = 36_500;

/** `90s`, `30m`, `1h`, `2d`, `1w` → milliseconds, at most MAX_WINDOW_DAYS; throws one line on anything else. */
export function parseWindow(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([smhdw])$/.exec(text.trim());
  const amount = match ? Number(match[1]) : Number.NaN;
  if (!match || !(amount > 0)) {
    throw new Error(`--window must be a positive duration like 30m, 1h, 2d (got ${JSON.stringify(text)})`);
  }
  const ms = amount * (UNITS[match[2]!] ?? 0);
  if (!(ms <= MAX_WINDOW_DAYS * UNITS.d!)) {
    throw new Error(`--window must be at most ${MAX_WINDOW_DAYS}d (got ${JSON.stringify(text)})`);
  }
  return ms;
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
const firstIds = (ids: Iterable<string>) => [...new Set(ids)].slice(0, 20);

const stableIdIn = (evidenceJson: string): boolean => {
  try {
    const evidence = JSON.parse(evidenceJson) as Record<string, unknown>;
    return STABLE_ID_KEYS.some((key) => {
      const value = evidence[key];
      return value !== undefined && value !== null && (typeof value !== "string" || value.trim().length > 0);
    });
  } catch {
    return false;
  }
};

function protocolCheck(runs: ReadonlyArray<LedgerRunFacts>, thresholds: HealthThresholds): HealthCheck {
  const count = runs.reduce((sum, run) => sum + run.protocolInvalid, 0);
  const affected = runs.filter((run) => run.protocolInvalid > 0);
  const rate = runs.length === 0 ? 0 : affected.length / runs.length;
  const firing = count >= thresholds.protocolInvalidMinCount && rate >= thresholds.protocolInvalidRate;
  return {
    name: "provider_tool_protocol_invalid_spike",
    status: firing ? "firing" : "ok",
    summary: `${count} tool_finish_without_parsed_calls anomalies in ${affected.length} of ${runs.length} runs (${percent(rate)}); fires at >= ${thresholds.protocolInvalidMinCount} and >= ${percent(thresholds.protocolInvalidRate)}`,
    value: count,
    runIds: firing ? firstIds(affected.map((run) => run.runId)) : [],
  };
}

function unverifiedCheck(
  current: ReadonlyArray<LedgerRunFacts>,
  previous: ReadonlyArray<LedgerRunFacts>,
  thresholds: HealthThresholds,
): HealthCheck {
  const ratio = (runs: ReadonlyArray<LedgerRunFacts>) =>
    runs.length === 0 ? 0 : runs.filter((run) => run.terminalState === "unverified").length / runs.length;
  const now = ratio(current);
  const before = ratio(previous);
  const comparable = current.length >= thresholds.unverifiedMinRuns && previous.length >= thresholds.unverifiedMinRuns;
  const firing = comparable && now - before >= thresholds.unverifiedJump;
  const base = `unverified ${percent(now)} of ${current.length} runs vs ${percent(before)} of ${previous.length} in the previous window`;
  return {
    name: "unverified_ratio_jump",
    status: firing ? "firing" : "ok",
    summary: comparable
      ? `${base}; fires on a rise of >= ${percent(thresholds.unverifiedJump)}`
      : `${base}; not compared (each window needs >= ${thresholds.unverifiedMinRuns} runs)`,
    value: now - before,
    runIds: firing ? firstIds(current.filter((run) => run.terminalState === "unverified").map((run) => run.runId)) : [],
  };
}

function ledgerFailureCheck(runs: ReadonlyArray<LedgerRunFacts>): HealthCheck {
  const failed = runs.filter((run) => run.ledgerWriteFailed);
  return {
    name: "ledger_write_failures",
    status: failed.length > 0 ? "firing" : "ok",
    summary: `${failed.length} run(s) ended failed/ledger_write_failed; fires at > 0`,
    value: failed.length,
    runIds: firstIds(failed.map((run) => run.runId)),
  };
}

/** Computes every check over [now − window, now], comparing with the window before it where needed. */
export const computeHealth = (options: HealthOptions): Effect.Effect<HealthReport, LedgerError, LedgerReads> =>
  Effect.gen(function* () {
    const reads = yield* LedgerReads;
    const thresholds = { ...DEFAULT_HEALTH_THRESHOLDS, ...options.thresholds };
    const to = (options.now ?? new Date()).getTime();
    const window = {
      from: new Date(to - options.windowMs).toISOString(),
      to: new Date(to).toISOString(),
      previousFrom: new Date(to - 2 * options.windowMs).toISOString(),
    };
    const current = yield* loadRunFacts({ endedAfter: window.from, endedAtOrBefore: window.to });
    const previous = yield* loadRunFacts({ endedAfter: window.previousFrom, endedAtOrBefore: window.from });

    const closedInWindow = { endedAfter: window.from, endedAtOrBefore: window.to };
    const orphans = yield* reads.replayOrphans(closedInWindow);
    const orphanKinds = new Map<string, number>();
    for (const row of orphans) orphanKinds.set(row.kind, (orphanKinds.get(row.kind) ?? 0) + 1);

    const okReceipts = yield* reads.okReceipts(closedInWindow);
    const deliverTools = new Set(options.deliverTools ?? DEFAULT_DELIVER_TOOLS);
    const runsById = new Map(current.map((run) => [run.runId, run]));
    const isDeliver = (receipt: OkReceiptRow) => {
      const contract = runsById.get(receipt.runId)?.contract;
      return (
        deliverTools.has(receipt.toolName) ||
        (contract?.evidenceMode === "deliver" && (contract.requiredToolNames ?? []).includes(receipt.toolName))
      );
    };
    const unstableReceipts = okReceipts.filter((receipt) => isDeliver(receipt) && !stableIdIn(receipt.evidenceJson));
    const stableRuns = new Set(okReceipts.filter((receipt) => stableIdIn(receipt.evidenceJson)).map((r) => r.runId));
    const completedWithout = current.filter(
      (run) => run.terminalState === "completed" && run.evidenceMode === "deliver" && !stableRuns.has(run.runId),
    );
    const unstable = unstableReceipts.length + completedWithout.length;

    const checks: HealthCheck[] = [
      protocolCheck(current, thresholds),
      unverifiedCheck(current, previous, thresholds),
      ledgerFailureCheck(current),
      {
        name: "orphan_replay_items",
        status: orphans.length > 0 ? "firing" : "ok",
        summary:
          orphans.length === 0
            ? "no dangling tool calls, orphan results or receipts without a call in closed runs; fires at > 0"
            : `${[...orphanKinds].map(([kind, n]) => `${n} ${kind}`).join(", ")} in closed runs; fires at > 0`,
        value: orphans.length,
        runIds: firstIds(orphans.map((row) => row.runId)),
      },
      {
        name: "deliveries_without_stable_receipt",
        status: unstable > 0 ? "firing" : "ok",
        summary: `${unstableReceipts.length} ok delivery receipt(s) without ${STABLE_ID_KEYS.slice(0, 3).join("/")}…, ${completedWithout.length} completed deliver run(s) without one; fires at > 0`,
        value: unstable,
        runIds: firstIds([...unstableReceipts.map((r) => r.runId), ...completedWithout.map((run) => run.runId)]),
      },
    ];
    return { window, runs: current.length, checks, firing: checks.some((check) => check.status === "firing") };
  });
