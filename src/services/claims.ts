import type { ExecutionReceipt, ToolKind } from "../domain/index.js";
import { type AttributedAction, attributedActions } from "./claims/actions.js";
import type { Agent } from "./claims/agent.js";
import { chineseCue } from "./claims/chinese.js";
import { englishCue } from "./claims/english.js";
import type { ClaimKind } from "./claims/kinds.js";
import { modelVeto } from "./claims/model.js";
import { assertionSentences, type Language } from "./claims/text.js";

/**
 * A deterministic detector of action claims in a final answer: it only
 * ever downgrades a run to `unverified`; it never triggers a tool.
 *
 * An answer claims an action when one of its assertions — code, quotations, questions and content
 * written for the user (drafts, templates) set aside — says that the assistant has done an action
 * of this task: in the first person, with the subject left out (a status line, a checked box, a
 * ✅ line), or as a completed passive or state of this task's object. Negation, modality and
 * conditions count in the verb's own clause only. The rules per language are in `claims/`, the
 * verbs and markers in one data table per language (`claims/lexicon.*.ts`).
 */

export type { Agent } from "./claims/agent.js";
export type { ClaimKind } from "./claims/kinds.js";

export interface Claim {
  readonly kind: ClaimKind;
  /** The word (or phrase) that made it a claim. */
  readonly verb: string;
  /** The sentence, as the answer wrote it. */
  readonly sentence: string;
  readonly language: Language;
  /** Who the detector found performed the action; only the assistant's actions are claims. */
  readonly agent?: Agent | undefined;
  /** What decided the agent, in a few plain words. */
  readonly reason?: string | undefined;
}

/**
 * Every sentence that reports a completed action, with who performed it — the assistant's ones are
 * the answer's claims, the others (the user, a third party, history) are shown in reports as what
 * was set aside and why. An assistant's action that the statistical check finds unlikely to be a
 * claim of this task (claims/model.ts) is set aside too, with its probability as the reason.
 */
export function completedActions(answer: string): Array<Claim & { readonly agent: Agent; readonly reason: string }> {
  const answerActions = attributedActions(answer);
  return answerActions.actions.map((first) => {
    let action: AttributedAction = first;
    let veto = action.agent === "assistant" ? modelVeto(action, answerActions) : undefined;
    // (A terse status set aside gives way to a later clause of its sentence that reports the same work.)
    if (veto && first.alternate) {
      const alternateVeto = modelVeto(first.alternate, answerActions);
      if (!alternateVeto) [action, veto] = [first.alternate, undefined];
    }
    return {
      kind: action.kind,
      verb: action.verb,
      sentence: action.sentence.text,
      language: action.sentence.language,
      agent: veto ? "none" : action.agent,
      reason: veto ?? action.reason,
    };
  });
}

/** The action claims an answer makes, at most one per sentence, in order: the assistant's own actions. */
export function detectClaims(answer: string): Claim[] {
  return completedActions(answer).filter((claim) => claim.agent === "assistant");
}

/**
 * The detector's unsure band: sentences it did not take as claims although they hold a completed
 * form of an action verb (English: a past form of any action verb; Chinese: a completion marker and
 * a verb of the table) — where a negation, a condition, another subject or agent (the user, a tool,
 * history) or an attributive reading decided. Only these go to the optional model judge
 * (claimJudge.ts), at most `limit` of them.
 */
export function uncertainSentences(answer: string, limit = 12): string[] {
  const claimed = new Set(detectClaims(answer).map((claim) => claim.sentence));
  const uncertain: string[] = [];
  for (const sentence of assertionSentences(answer)) {
    if (uncertain.length >= limit) break;
    if (claimed.has(sentence.text)) continue;
    const cue = sentence.language === "zh" ? chineseCue(sentence.plain) : englishCue(sentence.plain);
    if (cue) uncertain.push(sentence.text);
  }
  return uncertain;
}

/** Which tool kinds' successful receipts can back a claim of each kind. */
const BACKED_BY: Record<ClaimKind, ReadonlyArray<ToolKind>> = {
  observe: ["observe", "mutate", "deliver"],
  mutate: ["mutate"],
  deliver: ["deliver"],
};

/** Claims with no successful receipt of a kind that could back them. */
export function unbackedClaims(
  claims: ReadonlyArray<Claim>,
  receipts: ReadonlyArray<ExecutionReceipt>,
  toolKinds: Readonly<Record<string, ToolKind>>,
): Claim[] {
  const okKinds = new Set(
    receipts.filter((receipt) => receipt.status === "ok").map((receipt) => toolKinds[receipt.toolName]),
  );
  return claims.filter((claim) => !BACKED_BY[claim.kind].some((kind) => okKinds.has(kind)));
}
