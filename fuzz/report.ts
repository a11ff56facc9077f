/** What every reliability suite returns: its figures, printed by `npm run fuzz`, and its violations. */
export interface FuzzReport {
  readonly suite: string;
  /** Named figures, e.g. { killPoints: 512, runs: 1890, recoveredRuns: 431 }. */
  readonly figures: Readonly<Record<string, number | string>>;
  /** One line per broken invariant; an empty list is the only passing result. */
  readonly violations: ReadonlyArray<string>;
}
