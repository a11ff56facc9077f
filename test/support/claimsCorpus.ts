/** The labelled claims corpus (test/fixtures/claims) and its precision/recall per language. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { detectClaims } from "../../src/services/claims.js";

export interface LabelledAnswer {
  readonly id: string;
  readonly lang: "en" | "zh";
  readonly text: string;
  readonly claim: boolean;
  readonly kind: "observe" | "mutate" | "deliver" | null;
  readonly note: string;
  /** The third corpus (v3/) labels each answer's register (fact, how-to, ops report…) and length. */
  readonly register?: string;
  readonly length?: "short" | "long";
}

export type Split =
  | "dev"
  | "dev2"
  | "dev3"
  | "dev4"
  | "dev5"
  | "dev6"
  | "heldout"
  | "heldout2"
  | "v3/dev"
  | "v3/heldout"
  | "v4/dev"
  | "v4/heldout"
  | "v5/heldout"
  | "v6/heldout"
  | "v7/heldout"
  | "v8/heldout"
  | "v9/heldout"
  | "v10/heldout"
  | "v11/heldout"
  | "v12/heldout"
  | "v13/heldout"
  | "v14/heldout"
  | "v15/heldout"
  | "v16/heldout"
  | "v17/heldout"
  | "v18/heldout"
  | "v19/heldout"
  | "v20/heldout"
  | "v21/heldout"
  | "v22/heldout"
  | "v23/heldout"
  | "v24/heldout"
  | "v25/heldout"
  | "v26/heldout"
  | "v27/heldout"
  | "v28/heldout"
  | "v29/heldout"
  | "v30/heldout"
  | "v31/heldout"
  | "v32/heldout"
  | "v33/heldout"
  | "v34/heldout"
  | "v35/heldout"
  | "v36/heldout"
  | "v37/heldout"
  | "v38/heldout"
  | "v39/heldout"
  | "v40/heldout"
  | "v41/heldout"
  | "v42/heldout"
  | "v43/heldout"
  | "v44/heldout"
  | "v45/heldout"
  | "v46/heldout";

const DIR = fileURLToPath(new URL("../fixtures/claims/", import.meta.url));

export function loadCorpus(split: Split, lang: "en" | "zh"): LabelledAnswer[] {
  return readFileSync(`${DIR}${split}.${lang}.jsonl`, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as LabelledAnswer);
}

export interface Score {
  readonly answers: number;
  readonly precision: number;
  readonly recall: number;
  readonly truePositives: number;
  readonly falsePositives: number;
  readonly falseNegatives: number;
  readonly errors: ReadonlyArray<{ readonly id: string; readonly said: boolean; readonly note: string }>;
}

export function score(answers: ReadonlyArray<LabelledAnswer>): Score {
  let truePositives = 0;
  let falsePositives = 0;
  let falseNegatives = 0;
  const errors: Array<{ id: string; said: boolean; note: string }> = [];
  for (const answer of answers) {
    const said = detectClaims(answer.text).length > 0;
    if (said && answer.claim) truePositives++;
    else if (said) falsePositives++;
    else if (answer.claim) falseNegatives++;
    if (said !== answer.claim) errors.push({ id: answer.id, said, note: answer.note });
  }
  return {
    answers: answers.length,
    precision: truePositives / Math.max(1, truePositives + falsePositives),
    recall: truePositives / Math.max(1, truePositives + falseNegatives),
    truePositives,
    falsePositives,
    falseNegatives,
    errors,
  };
}

/** How often a group of answers was flagged: honest answers accused, and claims found. */
export interface GroupFigures {
  readonly group: string;
  readonly answers: number;
  readonly nonClaims: number;
  readonly flagged: number;
  readonly claims: number;
  readonly found: number;
}

/** The share of a group's non-claims that were flagged (0 when it has none). */
export const flagRate = (figures: GroupFigures) => figures.flagged / Math.max(1, figures.nonClaims);

/** Figures per group (a register, a length), in the groups' alphabetical order, with "all" first. */
export function figuresBy<Answer extends LabelledAnswer>(
  answers: ReadonlyArray<Answer>,
  groupOf: (answer: Answer) => string,
): GroupFigures[] {
  const groups = new Map<
    string,
    { answers: number; nonClaims: number; flagged: number; claims: number; found: number }
  >();
  for (const answer of answers) {
    const said = detectClaims(answer.text).length > 0;
    for (const group of ["all", groupOf(answer)]) {
      const entry = groups.get(group) ?? { answers: 0, nonClaims: 0, flagged: 0, claims: 0, found: 0 };
      entry.answers++;
      if (answer.claim) {
        entry.claims++;
        if (said) entry.found++;
      } else {
        entry.nonClaims++;
        if (said) entry.flagged++;
      }
      groups.set(group, entry);
    }
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === "all" ? -1 : b === "all" ? 1 : a.localeCompare(b)))
    .map(([group, entry]) => ({ group, ...entry }));
}

/** One line of figures: answers, non-claims flagged and claims found. */
export const describeFigures = (figures: GroupFigures) =>
  `${figures.group.padEnd(22)} n=${String(figures.answers).padStart(3)}  non-claims flagged ${figures.flagged}/${figures.nonClaims} (${(100 * flagRate(figures)).toFixed(1)} %)  claims found ${figures.found}/${figures.claims} (${((100 * figures.found) / Math.max(1, figures.claims)).toFixed(1)} %)`;
