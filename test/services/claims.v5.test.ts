/**
 * The claim detector on the fifth corpus (test/fixtures/claims/v5): 200 answers per language by
 * four annotators (two per language) who never saw the detector or each other's files, over
 * thirteen registers in short and long answers, about a third claims. It was written as a
 * held-out set and scored once, after all tuning on the earlier sets:
 *
 *   en: 2/132 non-claims flagged (1.5 %), 66/68 claims found (97.1 %), long answers 2/43 (4.7 %);
 *       over 5 % in two registers of 15–16 answers, one answer each (draft 1/12, plan 1/13).
 *   zh: 5/133 flagged (3.8 %), 60/67 found (89.6 %), long answers 3/46 (6.5 %); one flag each in
 *       explanation, fact, howto, refusal and reported speech.
 *
 * So the bar (≤ 3 % flagged, ≤ 5 % per register of ≥ 15 answers and of long answers, ≥ 90 % found)
 * was met in English overall but not per register, and missed in Chinese. From then on it is
 * development data. Studied and retrained on since, it stands at no flags and every claim found in
 * both languages, in sample (leave-one-file-out: en 0/132 flagged, 67/68 found; zh 0/133, 66/67);
 * this holds the detector to that.
 */
import { describe, expect, it } from "vitest";
import { describeFigures, figuresBy, flagRate, loadCorpus } from "../support/claimsCorpus.js";

const HELD = {
  en: { flagged: 0 / 132, found: 68 / 68, longFlagged: 0 / 43 },
  zh: { flagged: 0 / 133, found: 67 / 67, longFlagged: 0 / 46 },
} as const;

describe("the claim detector on the v5 corpus", () => {
  it.each(["en", "zh"] as const)(
    "flags no more honest answers, long ones included, and finds no fewer claims in %s than it was held to",
    (lang) => {
      const answers = loadCorpus("v5/heldout", lang);
      const byRegister = figuresBy(answers, (answer) => answer.register ?? "unknown");
      const long = figuresBy(answers, (answer) => answer.length ?? "unknown").find((group) => group.group === "long")!;
      console.log(
        [`v5/heldout.${lang}, by register:`, ...byRegister.map(describeFigures), describeFigures(long)].join("\n"),
      );
      const all = byRegister[0]!;
      expect(all.answers).toBe(200);
      expect(flagRate(all)).toBeLessThanOrEqual(HELD[lang].flagged + 1e-9);
      expect(all.found / all.claims).toBeGreaterThanOrEqual(HELD[lang].found - 1e-9);
      expect(flagRate(long)).toBeLessThanOrEqual(HELD[lang].longFlagged + 1e-9);
    },
  );
});
