/**
 * The lease epochs one ledger writer holds (see migration 0007), shared by the writer, which stamps
 * every row of a run with its epoch, and the owner's heartbeat, which renews the leases and learns
 * which ones moved to another owner. A run whose lease moved is marked lost at once: this process
 * may still try to record what it already started (the database refuses it), but starts nothing new.
 */
export interface LeaseBook {
  readonly epochOf: (runId: string) => number | undefined;
  readonly hold: (runId: string, epoch: number) => void;
  readonly drop: (runId: string) => void;
  /** Whether the run's lease was taken from this writer (a renewal no longer found it). */
  readonly lost: (runId: string) => boolean;
  /**
   * What a renewal found: the epochs of the leases it renewed. A lease held since before the
   * renewal started and missing from it (or with another epoch) has moved on: it is lost.
   */
  readonly renewed: (
    startedAt: number,
    rows: ReadonlyArray<{ readonly runId: string; readonly epoch: number }>,
  ) => void;
}

export const makeLeaseBook = (clock: () => number = Date.now): LeaseBook => {
  const held = new Map<string, { readonly epoch: number; readonly since: number }>();
  const lostRuns = new Set<string>();
  return {
    epochOf: (runId) => held.get(runId)?.epoch,
    hold: (runId, epoch) => {
      held.set(runId, { epoch, since: clock() });
      lostRuns.delete(runId);
    },
    drop: (runId) => {
      held.delete(runId);
      lostRuns.delete(runId);
    },
    lost: (runId) => lostRuns.has(runId),
    renewed: (startedAt, rows) => {
      const renewedEpochs = new Map(rows.map((row) => [row.runId, Number(row.epoch)]));
      for (const [runId, lease] of held) {
        if (lease.since >= startedAt) continue;
        if (renewedEpochs.get(runId) === lease.epoch) continue;
        held.delete(runId);
        lostRuns.add(runId);
      }
    },
  };
};
