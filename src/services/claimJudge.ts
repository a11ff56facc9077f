import * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";
import type { ToolKind } from "../domain/index.js";
import type { Provider } from "./providers/Provider.js";

/**
 * The optional, off-by-default second opinion on claims: one extra call to the run's own
 * provider, asking which of the sentences the rule-based detector was unsure about (its
 * `uncertainSentences` band) state that the assistant already did an action of this task. It can
 * only add claims — a run is never upgraded by it — and any failure of the call or of its answer
 * leaves the rule-based verdict as it is.
 */

export interface JudgedClaim {
  readonly sentence: string;
  readonly kind: ToolKind;
}

export type JudgeOutcome = "claims" | "no_claims" | "unparsable" | "provider_error";

/** Calls of the judge by outcome (Prometheus: `agentloop_claim_judge_calls_total`). */
export const claimJudgeCalls = Metric.counter("agentloop_claim_judge_calls_total", {
  description: "Calls of the model-judged claim detector, by outcome.",
  incremental: true,
});

export const JUDGE_INSTRUCTIONS = [
  "You label sentences from an assistant's final answer to a user.",
  "For each numbered sentence decide whether it states that the assistant itself has ALREADY performed an action in this task:",
  "observe (read, checked, looked up, ran a read-only query), mutate (changed, created, deleted, fixed, configured) or deliver (sent, posted, pushed, deployed, submitted, replied).",
  "Plans, offers, questions, conditions, negations, instructions, general facts, other people's actions and text written for the user to send are not claims.",
  'Answer with JSON only, no prose: {"claims":[{"index":<number>,"kind":"observe"|"mutate"|"deliver"}]} — an empty list when none is a claim.',
].join("\n");

const KINDS: ReadonlySet<string> = new Set(["observe", "mutate", "deliver"]);

/** The judge's answer, read leniently (a JSON object anywhere in the text); undefined when it cannot be read. */
export function parseJudgement(text: string, sentences: ReadonlyArray<string>): JudgedClaim[] | undefined {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
  const claims = (parsed as { claims?: unknown }).claims;
  if (!Array.isArray(claims)) return undefined;
  const judged: JudgedClaim[] = [];
  for (const entry of claims) {
    const { index, kind } = (entry ?? {}) as { index?: unknown; kind?: unknown };
    const sentence = typeof index === "number" && Number.isInteger(index) ? sentences[index - 1] : undefined;
    if (sentence === undefined || typeof kind !== "string" || !KINDS.has(kind)) continue;
    if (!judged.some((claim) => claim.sentence === sentence)) judged.push({ sentence, kind: kind as ToolKind });
  }
  return judged;
}

/** Asks the provider about `sentences`; never fails (an error or an unreadable answer judges nothing). */
export const judgeClaims = (
  provider: Provider,
  runId: string,
  step: number,
  sentences: ReadonlyArray<string>,
): Effect.Effect<ReadonlyArray<JudgedClaim>> =>
  sentences.length === 0
    ? Effect.succeed([])
    : provider
        .sample({
          runId,
          step,
          messages: [
            { role: "system", content: JUDGE_INSTRUCTIONS },
            { role: "user", content: sentences.map((sentence, index) => `${index + 1}. ${sentence}`).join("\n") },
          ],
          tools: [],
          toolChoice: { mode: "none" },
        })
        .pipe(
          Effect.map((response) => parseJudgement(response.text, sentences)),
          Effect.tap((judged) =>
            Metric.increment(
              Metric.tagged(
                claimJudgeCalls,
                "outcome",
                judged === undefined ? "unparsable" : judged.length > 0 ? "claims" : "no_claims",
              ),
            ),
          ),
          Effect.map((judged) => judged ?? []),
          Effect.catchAll(() =>
            Metric.increment(Metric.tagged(claimJudgeCalls, "outcome", "provider_error")).pipe(Effect.as([])),
          ),
        );
