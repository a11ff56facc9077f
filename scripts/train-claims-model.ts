/**
 * Trains the claim detector's statistical check (src/services/claims/model.ts) on the labelled
 * corpus and measures it:
 *
 *   npx tsx scripts/train-claims-model.ts --cv      # leave-one-file-out figures, rules alone vs with the check
 *   npx tsx scripts/train-claims-model.ts --write   # train on every file, write src/services/claims/claimsModel.json
 *
 * Leave-one-file-out: for each file of a language, the model is trained on the language's other
 * files, its threshold is chosen on those files' own leave-one-file-out scores (so never on the file
 * being scored), and the file is scored once. Options: --bits N (hash buckets 2^N), --l2, --iterations,
 * --max-lost (share of the rules' found claims the threshold may give up), --protect "a,b" (reasons
 * never overridden), --with-agent (the rules' agent and reason as features too), --cues (sentences
 * with a completed verb that no rule took, in honest answers, as more negatives), --long-sentences N
 * --long-margin M (the long-answer guard: in an answer of N sentences or more with no anchor of the
 * assistant's own, an unmarked status needs a probability M above the threshold; off by default),
 * --long-margin-zh M (the margin for Chinese, when it should differ), --held "v37,v38" (leave out
 * only the files of these folders; the others are always in training — the full cross-validation
 * trains a model for every pair of files, too slow on two cores with fifty files), --threshold T
 * (write this threshold instead of the chosen one), --inner-folds K (choose the threshold on K groups
 * of files rather than one file at a time: K + 1 models per left-out file instead of one per file). With --lang, --write rewrites that language
 * alone and keeps the other language's entry as it is, byte for byte.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type ClaimsModelData, modelFromData } from "../src/services/claims/model.js";
import type { Language } from "../src/services/claims/text.js";
import {
  addFigures,
  assistantScores,
  type CorpusAnswer,
  chooseThreshold,
  corpusFiles,
  describe,
  examples,
  type Figures,
  type FittedLanguage,
  figures,
  languageEntry,
  languageModel,
  loadFile,
  modelData,
  NO_FIGURES,
  type TrainOptions,
  train,
} from "./claimsTraining.js";

const { values: args } = parseArgs({
  options: {
    cv: { type: "boolean", default: false },
    write: { type: "boolean", default: false },
    bits: { type: "string", default: "15" },
    l2: { type: "string", default: "0.0003" },
    iterations: { type: "string", default: "120" },
    rate: { type: "string", default: "0.5" },
    "max-lost": { type: "string", default: "0.005" },
    // (Reasons that name the assistant, a done marker or the task's object reported done.)
    protect: {
      type: "string",
      default: "first person,done marker on its line,this task's object, marked done,this task's object, reported done",
    },
    lang: { type: "string" },
    cues: { type: "boolean", default: false },
    "with-agent": { type: "boolean", default: false },
    "long-sentences": { type: "string", default: "0" },
    "long-margin": { type: "string", default: "0" },
    // (The guard's margin for Chinese alone, when leave-one-file-out favours another one there.)
    "long-margin-zh": { type: "string" },
    held: { type: "string" },
    "inner-folds": { type: "string", default: "0" },
    threshold: { type: "string" },
  },
});

const options: TrainOptions = {
  dimensionBits: Number(args.bits),
  l2: Number(args.l2),
  iterations: Number(args.iterations),
  rate: Number(args.rate),
};
const maxLost = Number(args["max-lost"]);
const innerFolds = Number(args["inner-folds"]);
// (A reason may hold a comma itself: "this task's object, marked done".)
const protect = args.protect.split(/,(?! )/).filter((reason) => reason.trim() !== "");
const longFor = (language: Language) =>
  Number(args["long-sentences"]) > 0
    ? {
        sentences: Number(args["long-sentences"]),
        margin: Number(language === "zh" ? (args["long-margin-zh"] ?? args["long-margin"]) : args["long-margin"]),
      }
    : undefined;
const languageOf = (file: string): Language => (file.includes(".zh.") ? "zh" : "en");
const LANGUAGES: ReadonlyArray<Language> = args.lang ? [args.lang as Language] : ["en", "zh"];

const byFile = new Map<string, CorpusAnswer[]>();
for (const file of corpusFiles())
  if (LANGUAGES.includes(languageOf(file))) byFile.set(file, loadFile(file, args["with-agent"]));
const MODEL_FILE = fileURLToPath(new URL("../src/services/claims/claimsModel.json", import.meta.url));
const shippedData = JSON.parse(readFileSync(MODEL_FILE, "utf8")) as ClaimsModelData;
// (Left-out files of the cross-validation: every file, or those of the --held folders.)
const heldFolders = args.held?.split(",").map((folder) => `${folder.trim()}/`);
const isHeld = (file: string) => !heldFolders || heldFolders.some((folder) => file.startsWith(folder));
const filesOf = (language: Language) => [...byFile.keys()].filter((file) => file.includes(`.${language}.`));

/** Scores on each of `files` from a model trained on the others of `files`, and the fitted models' inputs. */
function outOfFold(files: ReadonlyArray<string>): Map<string, number[][]> {
  const scores = new Map<string, number[][]>();
  // (One file per fold, or the files dealt in turn into --inner-folds groups.)
  const folds = innerFolds > 0 ? innerFolds : files.length;
  for (let fold = 0; fold < folds; fold++) {
    const held = files.filter((_, at) => at % folds === fold);
    if (held.length === 0) continue;
    const rest = files.filter((file) => !held.includes(file)).flatMap((file) => byFile.get(file)!);
    const model = languageModel(
      train(examples(rest, options.dimensionBits, args.cues), options),
      0,
      protect,
      longFor(languageOf(held[0]!)),
    );
    for (const file of held) scores.set(file, assistantScores(byFile.get(file)!, model, options.dimensionBits));
  }
  return scores;
}

/** The threshold chosen on the given files' out-of-fold scores. */
function thresholdOn(files: ReadonlyArray<string>): number {
  const scores = outOfFold(files);
  const answers = files.flatMap((file) => byFile.get(file)!);
  return chooseThreshold(
    answers,
    files.flatMap((file) => scores.get(file)!),
    maxLost,
  );
}

function byGroup(answers: ReadonlyArray<CorpusAnswer>, scores: ReadonlyArray<number[]>, threshold: number) {
  const groups = new Map<string, { answers: CorpusAnswer[]; scores: number[][] }>();
  answers.forEach((item, at) => {
    for (const key of [item.register, `length ${item.length}`]) {
      const group = groups.get(key) ?? { answers: [], scores: [] };
      group.answers.push(item);
      group.scores.push(scores[at]!);
      groups.set(key, group);
    }
  });
  return [...groups.entries()]
    .filter(([key]) => !key.includes("unlabelled"))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, group]) => ({
      key,
      rules: figures(group.answers, group.scores, 0),
      model: figures(group.answers, group.scores, threshold),
    }));
}

/** Honest long answers flagged, as "long x/y". */
function longFlagged(answers: ReadonlyArray<CorpusAnswer>, scores: ReadonlyArray<number[]>, threshold: number) {
  const long = answers.flatMap((item, at) => (item.length === "long" ? [at] : []));
  const result = figures(
    long.map((at) => answers[at]!),
    long.map((at) => scores[at]!),
    threshold,
  );
  return `long ${result.flagged}/${result.nonClaims}`;
}

function crossValidate(language: Language) {
  const files = filesOf(language);
  let rulesTotal: Figures = NO_FIGURES;
  let modelTotal: Figures = NO_FIGURES;
  const registers = new Map<string, { rules: Figures; model: Figures }>();
  const shipped = modelFromData(shippedData).languages[language];
  let shippedTotal: Figures = NO_FIGURES;
  console.log(`\n== ${language}: leave one file out (${files.length} files) ==`);
  for (const held of files.filter(isHeld)) {
    const rest = files.filter((file) => file !== held);
    const threshold = thresholdOn(rest);
    const training = rest.flatMap((file) => byFile.get(file)!);
    const model = languageModel(
      train(examples(training, options.dimensionBits, args.cues), options),
      threshold,
      protect,
      longFor(language),
    );
    const answers = byFile.get(held)!;
    const scores = assistantScores(answers, model, options.dimensionBits);
    const rules = figures(answers, scores, 0);
    const withModel = figures(answers, scores, threshold);
    // (The shipped model, for comparison: its threshold, trained on whatever it was trained on.)
    const shippedScores = assistantScores(answers, { ...shipped, threshold: 0 }, options.dimensionBits);
    const shippedFigures = figures(answers, shippedScores, shipped.threshold);
    shippedTotal = addFigures(shippedTotal, shippedFigures);
    rulesTotal = addFigures(rulesTotal, rules);
    modelTotal = addFigures(modelTotal, withModel);
    console.log(
      `${held.padEnd(20)} threshold ${threshold.toFixed(2)}  rules ${describe(rules)} ${longFlagged(answers, scores, 0)}` +
        `  |  +model ${describe(withModel)} ${longFlagged(answers, scores, threshold)}` +
        `  |  shipped ${describe(shippedFigures)} ${longFlagged(answers, shippedScores, shipped.threshold)}`,
    );
    for (const group of byGroup(answers, scores, threshold)) {
      const entry = registers.get(group.key) ?? { rules: NO_FIGURES, model: NO_FIGURES };
      registers.set(group.key, {
        rules: addFigures(entry.rules, group.rules),
        model: addFigures(entry.model, group.model),
      });
    }
  }
  console.log(
    `${"ALL".padEnd(20)}                 rules ${describe(rulesTotal)}  |  +model ${describe(modelTotal)}  |  shipped ${describe(shippedTotal)}`,
  );
  if (registers.size > 0) console.log("by register and length (files that label them):");
  for (const [key, entry] of [...registers.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    console.log(`  ${key.padEnd(18)} rules ${describe(entry.rules)}  |  +model ${describe(entry.model)}`);
  }
}

if (args.cv) for (const language of LANGUAGES) crossValidate(language);

if (args.write) {
  const fitted = {} as Record<Language, FittedLanguage>;
  const summary: Record<string, unknown> = {};
  for (const language of LANGUAGES) {
    const files = filesOf(language);
    const chosen = thresholdOn(files);
    // (A threshold set by hand when the chosen one loses a claim or flags an answer of an older set.)
    const threshold = args.threshold === undefined ? chosen : Number(args.threshold);
    const answers = files.flatMap((file) => byFile.get(file)!);
    const data = examples(answers, options.dimensionBits, args.cues);
    fitted[language] = { trained: train(data, options), threshold, protect, long: longFor(language) };
    summary[language] = { files, answers: answers.length, examples: data.rows.length };
    console.log(
      `${language}: ${answers.length} answers, ${data.rows.length} examples, threshold ${threshold} (chosen ${chosen})`,
    );
  }
  const settings = {
    ...options,
    maxLost,
    protect,
    cues: args.cues,
    ...(longFor("en") ? { long: { en: longFor("en"), zh: longFor("zh") } } : {}),
  };
  let data: ClaimsModelData;
  if (LANGUAGES.length === 2) {
    data = modelData(options.dimensionBits, args["with-agent"], fitted, {
      by: "scripts/train-claims-model.ts",
      options: settings,
      ...summary,
    });
  } else {
    // One language rewritten: the other keeps its entry, so its results cannot change; the settings
    // that hash the features are shared by both, so they must be the ones already shipped.
    const language = LANGUAGES[0]!;
    if (options.dimensionBits !== shippedData.dimensionBits || args["with-agent"] !== shippedData.withAgent)
      throw new Error("--bits and --with-agent are shared by both languages: write both to change them");
    const own = summary[language] as Record<string, unknown>;
    data = {
      ...shippedData,
      languages: { ...shippedData.languages, [language]: languageEntry(fitted[language]) },
      trained: { ...shippedData.trained, [language]: { ...own, options: settings } },
    };
  }
  writeFileSync(MODEL_FILE, `${JSON.stringify(data, null, 2)}\n`);
  execFileSync("npx", ["biome", "format", "--write", MODEL_FILE], { stdio: "inherit" });
  console.log(`wrote ${MODEL_FILE}`);
}
