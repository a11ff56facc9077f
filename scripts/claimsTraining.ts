/**
 * The pieces of scripts/train-claims-model.ts: the labelled corpus read into attributed actions,
 * the training examples, a deterministic logistic regression, and the answer-level figures of the
 * rules alone and of the rules with the check.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type AnswerActions, type AttributedAction, attributedActions } from "../src/services/claims/actions.js";
import { chineseCue } from "../src/services/claims/chinese.js";
import { englishCue } from "../src/services/claims/english.js";
import {
  actionFeatureNames,
  type ClaimsModelData,
  hashFeatures,
  type LanguageModel,
  probability,
  reasonClass,
  unanchoredInLongAnswer,
} from "../src/services/claims/model.js";
import type { Language } from "../src/services/claims/text.js";

export interface CorpusAnswer {
  readonly id: string;
  readonly file: string;
  readonly lang: Language;
  readonly claim: boolean;
  readonly register: string;
  readonly length: string;
  readonly answer: AnswerActions;
  /** Each action's feature names, computed once. */
  readonly features: ReadonlyArray<ReadonlyMap<string, number>>;
  /** Sentences with a completed verb form that no rule took as an action: more negatives in honest answers. */
  readonly cues: ReadonlyArray<ReadonlyMap<string, number>>;
}

const DIR = fileURLToPath(new URL("../test/fixtures/claims/", import.meta.url));

/**
 * Every labelled file of the corpus (test/fixtures/claims/*.jsonl and the v3/ to v24/ folders), by
 * name, and the Chinese halves of v25 to v39 (v26 to v39 are Chinese only): v25's and v31's English
 * halves are kept out of training, so the English model stays the one that was scored.
 */
export function corpusFiles(): string[] {
  const top = readdirSync(DIR).filter((name) => name.endsWith(".jsonl"));
  const nested = [
    "v3",
    "v4",
    "v5",
    "v6",
    "v7",
    "v8",
    "v9",
    "v10",
    "v11",
    "v12",
    "v13",
    "v14",
    "v15",
    "v16",
    "v17",
    "v18",
    "v19",
    "v20",
    "v21",
    "v22",
    "v23",
    "v24",
  ].flatMap((folder) =>
    readdirSync(`${DIR}${folder}`)
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => `${folder}/${name}`),
  );
  return [
    ...top,
    ...nested,
    "v25/heldout.zh.jsonl",
    "v26/heldout.zh.jsonl",
    "v27/heldout.zh.jsonl",
    "v28/heldout.zh.jsonl",
    "v29/heldout.zh.jsonl",
    "v30/heldout.zh.jsonl",
    "v31/heldout.zh.jsonl",
    "v32/heldout.zh.jsonl",
    "v33/heldout.zh.jsonl",
    "v34/heldout.zh.jsonl",
    "v35/heldout.zh.jsonl",
    "v36/heldout.zh.jsonl",
    "v37/heldout.zh.jsonl",
    "v38/heldout.zh.jsonl",
    "v39/heldout.zh.jsonl",
  ].sort();
}

export function loadFile(file: string, withAgent: boolean): CorpusAnswer[] {
  return readFileSync(`${DIR}${file}`, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const row = JSON.parse(line) as {
        id: string;
        lang: Language;
        text: string;
        claim: boolean;
        register?: string;
        length?: string;
      };
      const answer = attributedActions(row.text);
      return {
        id: row.id,
        file,
        lang: row.lang,
        claim: row.claim,
        register: row.register ?? "unlabelled",
        length: row.length ?? "unlabelled",
        answer,
        features: answer.actions.map((action) => actionFeatureNames(action, answer, withAgent)),
        cues: answer.sentences.flatMap((sentence, index) => {
          if (answer.actions.some((action) => action.index === index)) return [];
          const cue = sentence.language === "zh" ? chineseCue(sentence.plain) : englishCue(sentence.plain);
          if (!cue) return [];
          const action: AttributedAction = {
            sentence,
            index,
            marked: false,
            kind: "observe",
            verb: "",
            agent: "none",
            reason: "no rule match",
          };
          return [actionFeatureNames(action, answer, withAgent)];
        }),
      };
    });
}

/** Sparse rows, ready for the regression. */
export interface Examples {
  readonly rows: ReadonlyArray<{ readonly indices: Int32Array; readonly values: Float32Array }>;
  readonly labels: Float32Array;
  readonly weights: Float32Array;
}

/**
 * The examples: every action in an answer labelled honest is a negative (whoever the rules said
 * acted); in an answer labelled a claim, the assistant's actions share one positive between them
 * (the label says one of them is a claim, not which) and the others are left out.
 */
export function examples(answers: ReadonlyArray<CorpusAnswer>, dimensionBits: number, withCues = false): Examples {
  const rows: Array<{ indices: Int32Array; values: Float32Array }> = [];
  const labels: number[] = [];
  const weights: number[] = [];
  const push = (names: ReadonlyMap<string, number>, label: number, weight: number) => {
    const hashed = [...hashFeatures(names, dimensionBits)].sort(([a], [b]) => a - b);
    rows.push({
      indices: Int32Array.from(hashed, ([index]) => index),
      values: Float32Array.from(hashed, ([, value]) => value),
    });
    labels.push(label);
    weights.push(weight);
  };
  for (const item of answers) {
    if (withCues && !item.claim) for (const cue of item.cues) push(cue, 0, 1);
    const own = item.answer.actions.filter((action) => action.agent === "assistant").length;
    item.answer.actions.forEach((action, at) => {
      if (item.claim && action.agent !== "assistant") return;
      push(item.features[at]!, item.claim ? 1 : 0, item.claim ? 1 / own : 1);
    });
  }
  return { rows, labels: Float32Array.from(labels), weights: Float32Array.from(weights) };
}

export interface TrainOptions {
  readonly dimensionBits: number;
  readonly l2: number;
  readonly iterations: number;
  readonly rate: number;
}

/**
 * Logistic regression by full-batch AdaGrad from zero weights: the same data gives the same model
 * on every machine. Positives and negatives weigh the same in total.
 */
export function train(data: Examples, options: TrainOptions): { bias: number; weights: Float64Array } {
  const size = 1 << options.dimensionBits;
  const weights = new Float64Array(size);
  const squares = new Float64Array(size).fill(1e-8);
  let bias = 0;
  let biasSquares = 1e-8;
  let positive = 0;
  let negative = 0;
  for (let row = 0; row < data.rows.length; row++) {
    if (data.labels[row]! > 0.5) positive += data.weights[row]!;
    else negative += data.weights[row]!;
  }
  const total = positive + negative;
  const balance = [total / (2 * Math.max(negative, 1e-9)), total / (2 * Math.max(positive, 1e-9))] as const;
  const gradient = new Float64Array(size);
  for (let iteration = 0; iteration < options.iterations; iteration++) {
    gradient.fill(0);
    let biasGradient = 0;
    for (let row = 0; row < data.rows.length; row++) {
      const { indices, values } = data.rows[row]!;
      let sum = bias;
      for (let k = 0; k < indices.length; k++) sum += weights[indices[k]!]! * values[k]!;
      const label = data.labels[row]!;
      const error = (1 / (1 + Math.exp(-sum)) - label) * data.weights[row]! * balance[label > 0.5 ? 1 : 0];
      biasGradient += error;
      for (let k = 0; k < indices.length; k++) gradient[indices[k]!]! += error * values[k]!;
    }
    const scale = 1 / total;
    biasGradient *= scale;
    biasSquares += biasGradient * biasGradient;
    bias -= (options.rate * biasGradient) / Math.sqrt(biasSquares);
    for (let index = 0; index < size; index++) {
      const step = gradient[index]! * scale + options.l2 * weights[index]!;
      if (step === 0) continue;
      squares[index]! += step * step;
      weights[index]! -= (options.rate * step) / Math.sqrt(squares[index]!);
    }
  }
  return { bias, weights };
}

/** Weights as signed bytes with one scale: what ships, and what the figures are measured with. */
export function quantise(weights: Float64Array): { scale: number; bytes: Int8Array } {
  let largest = 0;
  for (const weight of weights) largest = Math.max(largest, Math.abs(weight));
  const scale = largest / 127 || 1;
  return { scale, bytes: Int8Array.from(weights, (weight) => Math.round(weight / scale)) };
}

export function languageModel(
  trained: { bias: number; weights: Float64Array },
  threshold: number,
  protect: ReadonlyArray<string>,
  long?: { sentences: number; margin: number },
): LanguageModel {
  const { scale, bytes } = quantise(trained.weights);
  return {
    bias: trained.bias,
    weights: Float32Array.from(bytes, (value) => value * scale),
    threshold,
    protect: new Set(protect),
    long,
  };
}

/**
 * Each assistant action's probability under a model (protected reasons get 1), less the long-answer
 * guard's margin where it applies — so that one threshold compares with every score.
 */
export function assistantScores(
  answers: ReadonlyArray<CorpusAnswer>,
  model: LanguageModel,
  dimensionBits: number,
): number[][] {
  return answers.map((item) => {
    const guarded = unanchoredInLongAnswer(item.answer, model.protect, model.long);
    return item.answer.actions.flatMap((action, at) =>
      action.agent !== "assistant"
        ? []
        : model.protect.has(reasonClass(action.reason))
          ? [1]
          : // (Never under 0, so that the rules alone — threshold 0 — still count it.)
            [
              Math.max(
                0,
                probability(model, hashFeatures(item.features[at]!, dimensionBits)) -
                  (guarded ? model.long!.margin : 0),
              ),
            ],
    );
  });
}

export interface Figures {
  readonly answers: number;
  readonly nonClaims: number;
  readonly flagged: number;
  readonly claims: number;
  readonly found: number;
}

/** Answer-level figures: flagged when some assistant action's score reaches the threshold. */
export function figures(
  answers: ReadonlyArray<CorpusAnswer>,
  scores: ReadonlyArray<ReadonlyArray<number>>,
  threshold: number,
): Figures {
  let nonClaims = 0;
  let flagged = 0;
  let claims = 0;
  let found = 0;
  answers.forEach((item, at) => {
    const said = scores[at]!.some((score) => score >= threshold);
    if (item.claim) {
      claims++;
      if (said) found++;
    } else {
      nonClaims++;
      if (said) flagged++;
    }
  });
  return { answers: answers.length, nonClaims, flagged, claims, found };
}

export const addFigures = (a: Figures, b: Figures): Figures => ({
  answers: a.answers + b.answers,
  nonClaims: a.nonClaims + b.nonClaims,
  flagged: a.flagged + b.flagged,
  claims: a.claims + b.claims,
  found: a.found + b.found,
});

export const NO_FIGURES: Figures = { answers: 0, nonClaims: 0, flagged: 0, claims: 0, found: 0 };

export const describe = (figures: Figures) =>
  `flagged ${figures.flagged}/${figures.nonClaims} (${((100 * figures.flagged) / Math.max(1, figures.nonClaims)).toFixed(1)} %), found ${figures.found}/${figures.claims} (${((100 * figures.found) / Math.max(1, figures.claims)).toFixed(1)} %)`;

/**
 * The threshold to ship: the highest one (from a fixed grid) that loses at most `maxLost` of the
 * claims the rules found, on scores the model never trained on.
 */
export function chooseThreshold(
  answers: ReadonlyArray<CorpusAnswer>,
  scores: ReadonlyArray<ReadonlyArray<number>>,
  maxLost: number,
): number {
  const rulesFound = figures(answers, scores, 0).found;
  let chosen = 0;
  for (let threshold = 0.01; threshold <= 0.6; threshold += 0.01) {
    const rounded = Math.round(threshold * 100) / 100;
    if (rulesFound - figures(answers, scores, rounded).found > maxLost * rulesFound) break;
    chosen = rounded;
  }
  return chosen;
}

export interface FittedLanguage {
  readonly trained: { bias: number; weights: Float64Array };
  readonly threshold: number;
  readonly protect: ReadonlyArray<string>;
  readonly long?: { sentences: number; margin: number } | undefined;
}

/** One language's entry of the shipped file. */
export function languageEntry(fitted: FittedLanguage): ClaimsModelData["languages"]["en"] {
  const { trained: fit, threshold, protect, long } = fitted;
  const { scale, bytes } = quantise(fit.weights);
  return {
    bias: Number(fit.bias.toFixed(6)),
    scale,
    weights: Buffer.from(bytes.buffer).toString("base64"),
    threshold,
    protect: [...protect],
    ...(long ? { long } : {}),
  };
}

export function modelData(
  dimensionBits: number,
  withAgent: boolean,
  languages: Record<Language, FittedLanguage>,
  trained: Record<string, unknown>,
): ClaimsModelData {
  return {
    format: 1,
    dimensionBits,
    withAgent,
    languages: { en: languageEntry(languages.en), zh: languageEntry(languages.zh) },
    trained,
  };
}
