/**
 * The claim detector on the fourth corpus (test/fixtures/claims/v4): 320 answers per language by
 * two annotators who never saw the detector, over the same registers and lengths as v3, split in
 * halves at random within register, label and length. The held-out half was scored once, after
 * all tuning on the earlier sets, and missed the bar in Chinese (en: 2.8 % of non-claims flagged,
 * 94.4 % of claims found, long answers 7.7 %; zh: 3.8 %, 85.7 %, long 7.1 %); both halves are
 * development data from now on. This holds the detector to those figures: no change may flag more
 * honest answers or find fewer claims on either half.
 */
import { describe, expect, it } from "vitest";
import { describeFigures, figuresBy, flagRate, loadCorpus } from "../support/claimsCorpus.js";

// Since then the rules were reworked on both halves and the statistical check trained on them too,
// so these are the figures measured now, not fresh ones; the scored figures are in the comment above.
const MEASURED = {
  "v4/dev": { en: { flagged: 1 / 106, found: 52 / 54 }, zh: { flagged: 1 / 109, found: 50 / 51 } },
  "v4/heldout": { en: { flagged: 1 / 106, found: 52 / 54 }, zh: { flagged: 0 / 104, found: 56 / 56 } },
} as const;

describe("the claim detector on the v4 corpus", () => {
  it.each([
    ["v4/dev", "en"],
    ["v4/dev", "zh"],
    ["v4/heldout", "en"],
    ["v4/heldout", "zh"],
  ] as const)("flags no more honest answers and finds no fewer claims on %s in %s than measured", (split, lang) => {
    const answers = loadCorpus(split, lang);
    const byRegister = figuresBy(answers, (answer) => answer.register ?? "unknown");
    console.log([`${split}.${lang}, by register:`, ...byRegister.map(describeFigures)].join("\n"));
    const all = byRegister[0]!;
    expect(all.answers).toBe(160);
    expect(flagRate(all)).toBeLessThanOrEqual(MEASURED[split][lang].flagged + 1e-9);
    expect(all.found / all.claims).toBeGreaterThanOrEqual(MEASURED[split][lang].found - 1e-9);
  });
});
