import { readFileSync } from "node:fs";
import type { AnswerActions, AttributedAction } from "./actions.js";
import { CODE, type Language, QUOTE } from "./text.js";

/**
 * The statistical check on the rules: a logistic regression per language over what the text and
 * its answer show — the verb and its kind, a done marker, a table row, the answer's context (does
 * it report its own work, relay a source, narrate others; its length; the names it uses), first
 * and second person, years and identifiers, and hashed n-grams (words and word shapes in English,
 * characters in Chinese, and a window around the verb in both). The agent the rules gave is left
 * out: a view of its own catches what the rules get wrong (measured by the training script). The
 * rules find a completed action and decide whose it is; where their reason is not the first person,
 * a done marker or the task's object reported done, a probability under the language's threshold
 * sets the assistant's action aside. The check never makes a claim of its own.
 *
 * Trained offline by scripts/train-claims-model.ts on the labelled corpus (test/fixtures/claims),
 * shipped as data (claimsModel.json next to this file), read on first use. Deterministic: fixed
 * weights, a fixed hash, no randomness at run time.
 */

export interface LanguageModel {
  readonly bias: number;
  /** Dequantised weights, one per hashed feature bucket. */
  readonly weights: Float32Array;
  /** An assistant action whose probability is under this is set aside. */
  readonly threshold: number;
  /** Reasons the check never overrides (the first person, a done marker, the task's object reported done). */
  readonly protect: ReadonlySet<string>;
  /** The long-answer guard (see `unanchoredInLongAnswer`): from how many sentences, and by how much the threshold rises. */
  readonly long?: { readonly sentences: number; readonly margin: number } | undefined;
}

export interface ClaimsModel {
  readonly dimensionBits: number;
  /** Whether the agent and reason the rules gave are features, or only what the text and its context show. */
  readonly withAgent: boolean;
  readonly languages: Readonly<Record<Language, LanguageModel>>;
}

/** The shipped form: weights quantised to signed bytes, base64. */
export interface ClaimsModelData {
  readonly format: 1;
  readonly dimensionBits: number;
  readonly withAgent: boolean;
  readonly languages: Readonly<
    Record<
      Language,
      {
        readonly bias: number;
        readonly scale: number;
        readonly weights: string;
        readonly threshold: number;
        readonly protect: ReadonlyArray<string>;
        readonly long?: { readonly sentences: number; readonly margin: number };
      }
    >
  >;
  /** How it was trained, for whoever reads the file. */
  readonly trained: Readonly<Record<string, unknown>>;
}

export function modelFromData(data: ClaimsModelData): ClaimsModel {
  const languages = {} as Record<Language, LanguageModel>;
  for (const language of ["en", "zh"] as const) {
    const entry = data.languages[language];
    const bytes = new Int8Array(Buffer.from(entry.weights, "base64").buffer.slice(0));
    if (bytes.length !== 1 << data.dimensionBits)
      throw new Error(`claims model: ${language} has ${bytes.length} weights`);
    const weights = Float32Array.from(bytes, (value) => value * entry.scale);
    languages[language] = {
      bias: entry.bias,
      weights,
      threshold: entry.threshold,
      protect: new Set(entry.protect),
      long: entry.long,
    };
  }
  return { dimensionBits: data.dimensionBits, withAgent: data.withAgent, languages };
}

const MODEL_FILE = new URL("./claimsModel.json", import.meta.url);
let shipped: ClaimsModel | undefined;

/** The shipped model, read on first use. */
export function shippedModel(): ClaimsModel {
  shipped ??= modelFromData(JSON.parse(readFileSync(MODEL_FILE, "utf8")) as ClaimsModelData);
  return shipped;
}

/** FNV-1a over UTF-16 code units: the same bucket for the same feature on every machine. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193);
  }
  return value >>> 0;
}

/** A reason without what names the particular actor ("passive agent: by Argo" → "passive agent"). */
export const reasonClass = (reason: string) => reason.split(":")[0]!.trim();

const bucket = (value: number, edges: ReadonlyArray<number>) => edges.findIndex((edge) => value <= edge);

/** English tokens: words lower-cased, digits as 0, placeholders kept. */
function englishTokens(plain: string): { words: string[]; shapes: string[] } {
  const raw = plain.slice(0, 600).match(/CODEREF|QUOTEREF|[\p{L}][\p{L}'’-]*|\d[\d.,:]*|[^\s\p{L}\d]/gu) ?? [];
  const words = raw.map((token) =>
    token === CODE || token === QUOTE ? token : token.toLowerCase().replace(/\d/g, "0"),
  );
  const shapes = raw.map((token) =>
    token === CODE || token === QUOTE
      ? token
      : /^\d/.test(token)
        ? "0"
        : /^\p{Lu}{2,}/u.test(token)
          ? "XX"
          : /^\p{Lu}/u.test(token)
            ? "Xx"
            : /^\p{Ll}/u.test(token)
              ? "x"
              : token,
  );
  return { words, shapes };
}

/** Chinese units: a Han character each, a Latin word or a number as one unit. */
function chineseUnits(plain: string): string[] {
  return (plain.slice(0, 300).match(/CODEREF|QUOTEREF|[A-Za-z][\w.-]*|\d[\d.,:]*|\S/g) ?? []).map((unit) =>
    unit === CODE || unit === QUOTE
      ? unit
      : /^\d/.test(unit)
        ? "0"
        : /^[A-Za-z]/.test(unit)
          ? unit.toLowerCase()
          : unit,
  );
}

const FIRST_PERSON = { en: /\b(?:I|we|We|my|our|My|Our|me|us)\b|\bI'/, zh: /我|咱/ } as const;
const SECOND_PERSON = { en: /\b[Yy]ou(?:r|'ve|'re)?\b/, zh: /你|您/ } as const;
const YEAR = /(?<!\d)(?:1[0-9]{3}|20[0-9]{2})(?!\d)/;
const IDENTIFIER = /#\d+|\b[A-Z]{2,}-\d+\b|\d{5,}/;

/** What the whole answer shows, read once per answer and language however many actions it has. */
const answerLevel = new WeakMap<
  AnswerActions,
  Map<Language, { firstPerson: boolean; year: boolean; othersActions: number }>
>();

function answerFeatures(answer: AnswerActions, language: Language) {
  const byLanguage = answerLevel.get(answer) ?? new Map();
  answerLevel.set(answer, byLanguage);
  let found = byLanguage.get(language);
  if (!found) {
    found = {
      firstPerson: answer.sentences.some((sentence) => FIRST_PERSON[language].test(sentence.plain)),
      year: answer.sentences.some((sentence) => YEAR.test(sentence.plain)),
      othersActions: answer.actions.filter((other) => other.agent !== "assistant").length,
    };
    byLanguage.set(language, found);
  }
  return found;
}

/**
 * The features of one attributed action: names, each counted once, with a weight (n-grams share
 * a unit of weight between them so that a long sentence does not outvote its rule features).
 */
export function actionFeatureNames(
  action: AttributedAction,
  answer: AnswerActions,
  withAgent: boolean,
): Map<string, number> {
  const features = new Map<string, number>();
  const add = (name: string, value = 1) => features.set(name, value);
  const { sentence, context } = { sentence: action.sentence, context: answer.context };
  const language = sentence.language;
  if (withAgent) {
    add(`agent:${action.agent}`);
    add(`reason:${reasonClass(action.reason)}`);
  }
  add(`kind:${action.kind}`);
  add(`verb:${action.verb.toLowerCase()}`);
  if (action.marked) add("marked");
  if (sentence.checked) add("checked");
  if (sentence.tableRow) add("table row");
  if (context.report) add("context:report");
  if (context.relayed) add("context:relayed");
  if (context.othersAct) add("context:others act");
  add(`context:sentences:${bucket(context.sentences, [1, 2, 4, 8, Number.POSITIVE_INFINITY])}`);
  add(`context:names:${Math.min(3, context.names.size)}`);
  const position = action.index === 0 ? "first" : action.index === answer.sentences.length - 1 ? "last" : "middle";
  add(`position:${position}`);
  const plain = sentence.plain;
  add(`length:${bucket(plain.length, language === "zh" ? [12, 30, 60, 120, Infinity] : [30, 70, 140, 260, Infinity])}`);
  if (FIRST_PERSON[language].test(plain)) add("sentence:first person");
  if (SECOND_PERSON[language].test(plain)) add("sentence:second person");
  if (YEAR.test(plain)) add("sentence:year");
  if (IDENTIFIER.test(plain)) add("sentence:identifier");
  const whole = answerFeatures(answer, language);
  if (whole.firstPerson) add("answer:first person");
  if (whole.year) add("answer:year");
  const others = whole.othersActions - (action.agent === "assistant" ? 0 : 1);
  add(`answer:others' actions:${Math.min(3, others)}`);
  const grams: string[] = [];
  if (language === "en") {
    const { words, shapes } = englishTokens(plain);
    const verbAt = words.indexOf(action.verb.toLowerCase().split(" ")[0]!);
    for (let at = 0; at < words.length; at++) {
      grams.push(`w:${words[at]}`);
      if (at > 0) grams.push(`w2:${words[at - 1]} ${words[at]}`, `s2:${shapes[at - 1]} ${shapes[at]}`);
      if (at > 1) grams.push(`s3:${shapes[at - 2]} ${shapes[at - 1]} ${shapes[at]}`);
      const offset = at - verbAt;
      if (verbAt >= 0 && offset !== 0 && Math.abs(offset) <= 4) {
        grams.push(`near:${offset < 0 ? "-" : "+"}${Math.abs(offset) === 1 ? 1 : "n"}:${words[at]}`);
        grams.push(`nearshape:${offset}:${shapes[at]}`);
      }
    }
  } else {
    const units = chineseUnits(plain);
    const verb = chineseUnits(action.verb).join("");
    let verbAt = -1;
    for (let at = 0; at < units.length && verbAt < 0; at++) if (units.slice(at).join("").startsWith(verb)) verbAt = at;
    for (let at = 0; at < units.length; at++) {
      grams.push(`c:${units[at]}`);
      if (at > 0) grams.push(`c2:${units[at - 1]}${units[at]}`);
      if (at > 1) grams.push(`c3:${units[at - 2]}${units[at - 1]}${units[at]}`);
      const offset = at - verbAt;
      if (verbAt >= 0 && Math.abs(offset) <= 6 && offset !== 0) {
        grams.push(`near:${offset < 0 ? "-" : "+"}${Math.abs(offset) <= 2 ? Math.abs(offset) : "n"}:${units[at]}`);
      }
    }
  }
  const share = 1 / Math.sqrt(Math.max(1, grams.length));
  for (const gram of grams) features.set(gram, share);
  return features;
}

/** Hashed features: bucket → value, with the hash's top bit as the sign (collisions cancel, not pile up). */
export function hashFeatures(names: ReadonlyMap<string, number>, dimensionBits: number): Map<number, number> {
  const hashed = new Map<number, number>();
  const mask = (1 << dimensionBits) - 1;
  for (const [name, value] of names) {
    const code = hash(name);
    const index = code & mask;
    hashed.set(index, (hashed.get(index) ?? 0) + (code >>> 31 ? -value : value));
  }
  return hashed;
}

export function probability(model: LanguageModel, features: ReadonlyMap<number, number>): number {
  let sum = model.bias;
  for (const [index, value] of features) sum += model.weights[index]! * value;
  return 1 / (1 + Math.exp(-sum));
}

/**
 * A long answer is flagged if any of its sentences is taken as a claim, so a rule's rare mistake on
 * one sentence adds up over many. Where the answer gives the assistant no anchor of its own — no
 * first person, no done mark, no reason the check may not override — an unmarked status in a
 * long answer needs stronger evidence: the threshold rises by the language's margin. (Measured
 * leave-one-file-out by scripts/train-claims-model.ts --long-sentences 8 --long-margin 0.1.)
 */
export function unanchoredInLongAnswer(
  answer: AnswerActions,
  protect: ReadonlySet<string>,
  long: { readonly sentences: number } | undefined,
): boolean {
  if (!long || answer.context.sentences < long.sentences) return false;
  return !answer.actions.some(
    // (A done mark anywhere in the sentence — "Sources verified: ✅ all pages checked" — is the writer's own.)
    (other) =>
      other.agent === "assistant" &&
      (other.marked || /[✅✔☑]/u.test(other.sentence.plain) || protect.has(reasonClass(other.reason))),
  );
}

/**
 * Why an assistant's action is set aside by the check, or undefined when it stands: its reason is
 * one the check may override and its probability is under the language's threshold.
 */
export function modelVeto(action: AttributedAction, answer: AnswerActions, model = shippedModel()): string | undefined {
  const own = model.languages[action.sentence.language];
  if (own.protect.has(reasonClass(action.reason))) return undefined;
  const names = actionFeatureNames(action, answer, model.withAgent);
  const p = probability(own, hashFeatures(names, model.dimensionBits));
  const threshold = own.threshold + (unanchoredInLongAnswer(answer, own.protect, own.long) ? own.long!.margin : 0);
  return p < threshold ? `unlikely a claim of this task (model p=${p.toFixed(2)}; rule: ${action.reason})` : undefined;
}
