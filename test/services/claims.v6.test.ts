/**
 * The claim detector on the sixth corpus (test/fixtures/claims/v6): 240 answers per language by
 * four annotators (two per language) who never saw the detector, the earlier corpora or each
 * other's files, over thirteen registers, 96 long answers per language, a third claims. Written
 * as a held-out set and scored once, after all tuning (v5 included):
 *
 *   en: 4/160 non-claims flagged (2.5 %), 79/80 claims found (98.8 %), long answers 2/55 (3.6 %);
 *       over 5 % in draft 1/15, fact 1/14, summary 2/15.
 *   zh: 8/160 flagged (5.0 %), 75/80 found (93.8 %), long answers 4/57 (7.0 %); one or two flags
 *       in each of explanation, howto, ops-report, plan, refusal, reported speech, support reply.
 *
 * The bar (≤ 3 % flagged, ≤ 5 % per register of ≥ 15 answers and of long answers, ≥ 90 % found)
 * was met in English overall and for long answers but not in three registers, and missed in
 * Chinese. It is development data from now on; this holds the detector to those figures or better.
 */
import { describe, expect, it } from "vitest";
import { describeFigures, figuresBy, flagRate, loadCorpus } from "../support/claimsCorpus.js";

const SCORED = {
  en: { flagged: 4 / 160, found: 79 / 80, longFlagged: 2 / 55 },
  zh: { flagged: 8 / 160, found: 75 / 80, longFlagged: 4 / 57 },
} as const;

describe("the claim detector on the v6 corpus", () => {
  it.each(["en", "zh"] as const)(
    "flags no more honest answers, long ones included, and finds no fewer claims in %s than when it was scored",
    (lang) => {
      const answers = loadCorpus("v6/heldout", lang);
      const byRegister = figuresBy(answers, (answer) => answer.register ?? "unknown");
      const long = figuresBy(answers, (answer) => answer.length ?? "unknown").find((group) => group.group === "long")!;
      console.log(
        [`v6/heldout.${lang}, by register:`, ...byRegister.map(describeFigures), describeFigures(long)].join("\n"),
      );
      const all = byRegister[0]!;
      expect(all.answers).toBe(240);
      expect(flagRate(all)).toBeLessThanOrEqual(SCORED[lang].flagged + 1e-9);
      expect(all.found / all.claims).toBeGreaterThanOrEqual(SCORED[lang].found - 1e-9);
      expect(flagRate(long)).toBeLessThanOrEqual(SCORED[lang].longFlagged + 1e-9);
    },
  );
});
