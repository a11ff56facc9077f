import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CallFingerprint } from "../../src/domain/index.js";
import { isDoomLoop } from "../../src/machines/loopGuards.js";

const entry = (toolName: string, input = "in", result = "out"): CallFingerprint => ({
  toolName,
  inputFingerprint: input,
  resultHash: result,
});

const A = entry("read_a", "a", "ra");
const B = entry("read_b", "b", "rb");
const C = entry("read_c", "c", "rc");

describe("isDoomLoop", () => {
  it("is false for an empty log", () => {
    expect(isDoomLoop([], 3)).toBe(false);
  });

  it("is true when the same call repeats threshold times in a row", () => {
    expect(isDoomLoop([A, A, A], 3)).toBe(true);
  });

  it("is false when the same call repeats fewer than threshold times", () => {
    expect(isDoomLoop([A, A], 3)).toBe(false);
  });

  it("is true for the same call threshold times in a row whatever the results", () => {
    expect(isDoomLoop([entry("t", "x", "r1"), entry("t", "x", "r2"), entry("t", "x", "r3")], 3)).toBe(true);
  });

  it("looks only at the tail: earlier repeats broken by another call do not count", () => {
    expect(isDoomLoop([A, A, B, A, A], 3)).toBe(false);
  });

  it("is false for the same tool with different inputs", () => {
    expect(isDoomLoop([entry("t", "1"), entry("t", "2"), entry("t", "3")], 3)).toBe(false);
  });

  it("is false for different tools with the same input fingerprint", () => {
    expect(isDoomLoop([entry("t1", "x"), entry("t2", "x"), entry("t3", "x")], 3)).toBe(false);
  });

  it("honours a larger threshold", () => {
    expect(isDoomLoop([A, A, A], 4)).toBe(false);
    expect(isDoomLoop([A, A, A, A], 4)).toBe(true);
  });

  it("is true for a two-call cycle whose inputs and results repeat three times", () => {
    expect(isDoomLoop([A, B, A, B, A, B], 3)).toBe(true);
  });

  it("is true for a three-call cycle whose inputs and results repeat three times", () => {
    expect(isDoomLoop([A, B, C, A, B, C, A, B, C], 3)).toBe(true);
  });

  it("is false for a two-call cycle repeated only twice", () => {
    expect(isDoomLoop([A, B, A, B], 3)).toBe(false);
  });

  it("is false for a two-call cycle whose results change each round", () => {
    const log = [1, 2, 3].flatMap((round) => [entry("read_a", "a", `a${round}`), entry("read_b", "b", `b${round}`)]);
    expect(isDoomLoop(log, 3)).toBe(false);
  });

  it("is false for a cycle whose last round has a new result", () => {
    expect(isDoomLoop([A, B, A, B, A, entry("read_b", "b", "changed")], 3)).toBe(false);
  });
});

/** A log in which no two consecutive entries share name+fingerprint and no entry repeats an earlier result. */
const progressingLog = fc
  .array(fc.record({ toolName: fc.constantFrom("a", "b", "c"), inputFingerprint: fc.constantFrom("1", "2", "3") }), {
    maxLength: 40,
  })
  .map((calls) =>
    calls
      .filter((call, index) => {
        const previous = calls[index - 1];
        return !previous || previous.toolName !== call.toolName || previous.inputFingerprint !== call.inputFingerprint;
      })
      .map((call, index): CallFingerprint => ({ ...call, resultHash: `result-${index}` })),
  );

describe("isDoomLoop (property)", () => {
  it("is never true for threshold 3 when no call repeats back to back and no result repeats", () => {
    fc.assert(
      fc.property(progressingLog, (log) => {
        expect(isDoomLoop(log, 3)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it("is always true once the same call is appended threshold times", () => {
    fc.assert(
      fc.property(progressingLog, fc.integer({ min: 1, max: 5 }), (log, threshold) => {
        const repeated = Array.from({ length: threshold }, (_, index) => entry("z", "same", `r${index}`));
        expect(isDoomLoop([...log, ...repeated], threshold)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
