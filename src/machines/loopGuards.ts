import type { CallFingerprint } from "../domain/index.js";

export type { CallFingerprint };

const sameInput = (a: CallFingerprint, b: CallFingerprint) =>
  a.toolName === b.toolName && a.inputFingerprint === b.inputFingerprint;
const sameInputAndResult = (a: CallFingerprint, b: CallFingerprint) => sameInput(a, b) && a.resultHash === b.resultHash;

/**
 * A doom loop: the same tool with the same
 * input `threshold` times in a row, whatever the results; or a cycle of 2–3 calls whose inputs
 * *and* results repeat three times (A,B,A,B,A,B) — the run is making no progress.
 */
export function isDoomLoop(log: ReadonlyArray<CallFingerprint>, threshold: number): boolean {
  if (threshold >= 1 && log.length >= threshold) {
    const tail = log.slice(-threshold);
    if (tail.every((entry) => sameInput(entry, tail[0]!))) return true;
  }
  for (const period of [2, 3]) {
    const span = period * 3;
    if (log.length < span) continue;
    const tail = log.slice(-span);
    let repeats = true;
    for (let i = 0; i < period && repeats; i++) {
      repeats = sameInputAndResult(tail[i]!, tail[i + period]!) && sameInputAndResult(tail[i]!, tail[i + 2 * period]!);
    }
    if (repeats) return true;
  }
  return false;
}
