/** The deadlines every hostile case runs under, and the bound on one run's wall time they imply. */
import type { RetryPolicy } from "../../src/services/providers/retry.js";

/** The deadlines every case runs under (small, so the suite is fast). */
export const TIMING = {
  /** Provider idle timeout: the longest wait for progress (`timeoutMs`). */
  idleMs: 1_000,
  /** Provider overall deadline of one call (`deadlineMs`). */
  deadlineMs: 2_500,
  /** Steps per run. */
  maxSteps: 4,
  /** Tool timeout. */
  toolTimeoutMs: 2_000,
  /** Added to the computed bound: scheduling, SQLite, 5 MB payloads on a busy machine. */
  marginMs: 6_000,
} as const;

export const RETRY: RetryPolicy = { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 300 };

/**
 * The longest a run may take: every step (plus a correction and a repair turn) may use every
 * attempt up to the call deadline, wait the capped retry-after, and run its tools to their timeout.
 */
export const RUN_DEADLINE_MS =
  (TIMING.maxSteps + 2) *
    ((RETRY.maxRetries + 1) * (TIMING.deadlineMs + (RETRY.maxRetryAfterMs ?? 0) + RETRY.maxDelayMs) +
      TIMING.toolTimeoutMs) +
  TIMING.marginMs;
