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
   * The leases held since before a renewal started that it did not renew with the epoch held:
   * candidates for a lease that moved on (or a run opened or closed while the renewal ran, which
   * the caller tells apart by reading the lease rows).
   */
  readonly unconfirmed: (
    startedAt: number,
    renewed: ReadonlyArray<{ readonly runId: string; readonly epoch: number }>,
  ) => ReadonlyArray<string>;
  /** The lease row now names another owner or epoch: this writer lost the run. */
  readonly markLost: (runId: string) => void;
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
    unconfirmed: (startedAt, renewed) => {
      const renewedEpochs = new Map(renewed.map((row) => [row.runId, Number(row.epoch)]));
      return [...held]
        .filter(([runId, lease]) => lease.since < startedAt && renewedEpochs.get(runId) !== lease.epoch)
        .map(([runId]) => runId);
    },
    markLost: (runId) => {
      if (!held.has(runId)) return;
      held.delete(runId);
      lostRuns.add(runId);
    },
  };
};
