/**
 * `claims`: the claim detector runs on every final answer, so it must stay cheap. Reports its
 * precision and recall per language on the labelled corpus (development and held-out halves), the
 * throughput over the whole corpus (answers/s) and the time for one 2 KB answer (µs), with the part
 * of it the statistical check takes (claims/model.ts: every action of the answer scored).
 */
import { performance } from "node:perf_hooks";
import { attributedActions } from "../../src/services/claims/actions.js";
import { modelVeto, shippedModel } from "../../src/services/claims/model.js";
import { detectClaims } from "../../src/services/claims.js";
import { type LabelledAnswer, loadCorpus, score } from "../../test/support/claimsCorpus.js";
import { stat } from "../lib/measure.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";

const LANGS = ["en", "zh"] as const;

/** An answer of about 2 KB: corpus answers of one language joined as paragraphs. */
function answerOfBytes(answers: ReadonlyArray<LabelledAnswer>, bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (const answer of answers) {
    if (size >= bytes) break;
    parts.push(answer.text);
    size += Buffer.byteLength(answer.text) + 2;
  }
  return parts.join("\n\n");
}

/** µs per call of `fn`, min and median over repetitions of `calls` calls each. */
function usPerCall(fn: () => unknown, calls: number, reps: number) {
  for (let i = 0; i < calls; i++) fn(); // warm-up
  const us: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const started = performance.now();
    for (let i = 0; i < calls; i++) fn();
    us.push(((performance.now() - started) * 1000) / calls);
  }
  return stat(us);
}

export async function benchClaims(options: BenchOptions): Promise<BenchResult> {
  const quality: Record<string, unknown> = {};
  const all: LabelledAnswer[] = [];
  for (const lang of LANGS) {
    for (const split of lang === "zh" ? (["dev", "heldout", "heldout2"] as const) : (["dev", "heldout"] as const)) {
      const answers = loadCorpus(split, lang);
      all.push(...answers);
      const result = score(answers);
      quality[`${split}.${lang}`] = {
        answers: result.answers,
        precision: Number(result.precision.toFixed(3)),
        recall: Number(result.recall.toFixed(3)),
      };
    }
  }
  const reps = options.quick ? 2 : 5;
  const corpus = await options.measured(async () =>
    usPerCall(
      () => {
        for (const answer of all) detectClaims(answer.text);
      },
      options.quick ? 1 : 20,
      reps,
    ),
  );
  const twoKb = Object.fromEntries(
    LANGS.map((lang) => {
      const text = answerOfBytes(loadCorpus("dev", lang), 2048);
      const answer = attributedActions(text);
      shippedModel();
      const check = () => {
        for (const action of answer.actions) modelVeto(action, answer);
      };
      return [
        lang,
        {
          bytes: Buffer.byteLength(text),
          us: usPerCall(() => detectClaims(text), options.quick ? 10 : 500, reps),
          modelCheck: { actions: answer.actions.length, us: usPerCall(check, options.quick ? 10 : 500, reps) },
        },
      ];
    }),
  );
  return {
    id: "claims",
    what: "detectClaims over the labelled corpus (dev + held-out, both languages) and on one 2 KB answer per language",
    quality,
    answersPerSec: Math.round((all.length * 1e6) / corpus.median),
    corpusAnswers: all.length,
    usPer2KbAnswer: twoKb,
    reps,
  };
}
