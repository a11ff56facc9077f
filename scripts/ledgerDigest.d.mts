/** One run's rows with run-to-run differences masked (see ledgerDigest.mjs). */
export interface RunDigest {
  readonly session: string;
  readonly terminal: ReadonlyArray<unknown>;
  readonly contract: unknown;
  readonly events: ReadonlyArray<unknown>;
  readonly receipts: ReadonlyArray<unknown>;
}
export function ledgerDigest(file: string): RunDigest[];
