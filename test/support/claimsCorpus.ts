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
}

export type Split = "dev" | "dev2" | "dev3" | "dev4" | "dev5" | "dev6" | "heldout" | "heldout2";

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
