/**
 * The claim detector on the third corpus (test/fixtures/claims/v3), written by four annotators who
 * never saw the detector, over registers (facts, explanations, how-tos, plans, drafts, refusals,
 * summaries, reported speech; support replies, coding-agent and ops reports, office tasks,
 * research answers) in short and long answers. The bar, per language: non-claims flagged ≤ 3 %
 * overall, ≤ 5 % in every register with at least 15 answers and ≤ 5 % of long answers; claims
 * found ≥ 90 %. The figures are printed by register and length; errors are not printed (score them
 * with scripts/claimsScore.ts).
 */
import { describe, expect, it } from "vitest";
import {
  describeFigures,
  figuresBy,
  flagRate,
  type GroupFigures,
  type LabelledAnswer,
  loadCorpus,
} from "../support/claimsCorpus.js";

const FLAGGED_BAR = 0.03;
const FLAGGED_BAR_PER_GROUP = 0.05;
const FOUND_BAR = 0.9;
/** A register's figures count once it has this many answers. */
const GROUP_MIN_ANSWERS = 15;

function report(split: "v3/dev" | "v3/heldout", lang: "en" | "zh") {
  const answers: ReadonlyArray<LabelledAnswer> = loadCorpus(split, lang);
  const byRegister = figuresBy(answers, (answer) => answer.register ?? "unknown");
  const byLength = figuresBy(answers, (answer) => answer.length ?? "unknown");
  const byBoth = figuresBy(answers, (answer) => `${answer.register ?? "unknown"}/${answer.length ?? "unknown"}`);
  console.log(
    [
      `${split}.${lang}, by register:`,
      ...byRegister.map(describeFigures),
      "by length:",
      ...byLength.slice(1).map(describeFigures),
      "by register and length:",
      ...byBoth.slice(1).map(describeFigures),
    ].join("\n"),
  );
  return {
    all: byRegister[0]!,
    byRegister: byRegister.slice(1),
    long: byLength.find((group) => group.group === "long"),
  };
}

const overBar = (groups: ReadonlyArray<GroupFigures>) =>
  groups
    .filter((group) => group.answers >= GROUP_MIN_ANSWERS && flagRate(group) > FLAGGED_BAR_PER_GROUP)
    .map((group) => `${group.group} ${(100 * flagRate(group)).toFixed(1)} %`);

describe("the claim detector on the v3 corpus", () => {
  // The held-out half was scored once, after the first round of tuning, and missed the bar (en 7.3 %
  // of non-claims flagged, zh 11.1 %; claims found 97.0 % and 98.4 %). Both halves have been
  // development data since; a fresh held-out set is scored elsewhere. This holds the detector to
  // what it measures on them now (rules and the statistical check together, claims/model.ts): no
  // change may flag more honest answers or find fewer claims on either half.
  const MEASURED = {
    "v3/dev": { en: { flagged: 1 / 124, found: 65 / 66 }, zh: { flagged: 0 / 124, found: 63 / 66 } },
    "v3/heldout": { en: { flagged: 0 / 124, found: 66 / 66 }, zh: { flagged: 0 / 126, found: 63 / 64 } },
  } as const;

  it.each([
    ["v3/dev", "en"],
    ["v3/dev", "zh"],
    ["v3/heldout", "en"],
    ["v3/heldout", "zh"],
  ] as const)("flags no more honest answers and finds no fewer claims on %s in %s than measured", (split, lang) => {
    const { all, byRegister, long } = report(split, lang);
    console.log(
      `the bar: flagged ${(100 * flagRate(all)).toFixed(1)} % (≤ ${100 * FLAGGED_BAR} %), found ${(
        (100 * all.found) / all.claims
      ).toFixed(1)} % (≥ ${100 * FOUND_BAR} %), long ${long ? (100 * flagRate(long)).toFixed(1) : "-"} % (≤ ${
        100 * FLAGGED_BAR_PER_GROUP
      } %), registers over ${100 * FLAGGED_BAR_PER_GROUP} %: ${overBar(byRegister).join(", ") || "none"}`,
    );
    expect(all.answers).toBeGreaterThanOrEqual(150);
    expect(flagRate(all)).toBeLessThanOrEqual(MEASURED[split][lang].flagged + 1e-9);
    expect(all.found / all.claims).toBeGreaterThanOrEqual(MEASURED[split][lang].found - 1e-9);
    // The bar itself holds on both halves now.
    expect(flagRate(all)).toBeLessThanOrEqual(FLAGGED_BAR);
    expect(all.found / all.claims).toBeGreaterThanOrEqual(FOUND_BAR);
    expect(overBar(byRegister)).toEqual([]);
    if (long) expect(flagRate(long)).toBeLessThanOrEqual(FLAGGED_BAR_PER_GROUP);
  });
});
