/**
 * `answer.<size>.<lang>[.lines]`: the verifier reading one very long final answer for claims
 * (readClaimsYielding + verifyAnswer, as the runtime's VERIFY does), 1 MB and 5 MB of English or
 * Chinese sentences, on one line or one sentence per line. Reports CPU time per answer, wall time,
 * and the longest the event loop was held (monitorEventLoopDelay) — the verifier must let a
 * process's other runs, timers and signal handlers run while it reads.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Effect } from "effect";
import { NONE_CONTRACT, ProviderCapabilities } from "../../src/domain/index.js";
import { answerPieces } from "../../src/services/answerPieces.js";
import { readClaimsYielding, verifyAnswer } from "../../src/services/verification.js";
import { stat } from "../lib/measure.js";
import type { BenchOptions, BenchResult } from "../lib/types.js";

const SENTENCES = {
  en: "The quick brown fox jumps over the lazy dog. ",
  zh: "敏捷的棕色狐狸跳过了那只懒狗。",
} as const;

export interface LongAnswerSpec {
  readonly megabytes: 1 | 5;
  readonly lang: keyof typeof SENTENCES;
  readonly lines: boolean;
}

export const longAnswerId = (spec: LongAnswerSpec) =>
  `answer.${spec.megabytes}mb.${spec.lang}${spec.lines ? ".lines" : ""}`;

function answerOf(spec: LongAnswerSpec): string {
  const unit = spec.lines ? `${SENTENCES[spec.lang]}\n` : SENTENCES[spec.lang];
  return unit.repeat(Math.ceil((spec.megabytes * 1_000_000) / Buffer.byteLength(unit)));
}

const verify = (answer: string) =>
  Effect.runPromise(
    readClaimsYielding(answer).pipe(
      Effect.map((reading) =>
        verifyAnswer(
          {
            runId: "bench",
            contract: NONE_CONTRACT,
            receipts: [],
            answer,
            toolKinds: {},
            correctionTurns: 0,
            capabilities: ProviderCapabilities.parse({}),
          },
          reading,
        ),
      ),
    ),
  );

export async function benchLongAnswer(spec: LongAnswerSpec, options: BenchOptions): Promise<BenchResult> {
  const answer = answerOf(spec);
  const { pieces, scope } = answerPieces(answer);
  await verify(answer); // warm-up: the lexicons' regular expressions compile on first use
  const reps = options.quick ? 1 : 5;
  const cpuMs: number[] = [];
  const wallMs: number[] = [];
  const holdMs: number[] = [];
  await options.measured(async () => {
    for (let rep = 0; rep < reps; rep++) {
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const cpu = process.cpuUsage();
      const started = performance.now();
      const verdict = await verify(answer);
      wallMs.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      cpuMs.push((used.user + used.system) / 1000);
      delay.disable();
      holdMs.push(delay.max / 1e6);
      if (verdict.verdict !== "completed") throw new Error(`expected completed, got ${verdict.verdict}`);
    }
  });
  return {
    id: longAnswerId(spec),
    what: `the verifier over one ${spec.megabytes} MB ${spec.lang} answer ${spec.lines ? "(a sentence per line)" : "(no newlines)"}`,
    answerBytes: Buffer.byteLength(answer),
    readBytes: scope ? scope.headBytes + scope.tailBytes : Buffer.byteLength(answer),
    pieces: pieces.length,
    cpuMs: stat(cpuMs),
    wallMs: stat(wallMs),
    longestHoldMs: stat(holdMs),
    reps,
  };
}
