import type { AnswerContext, Subject } from "./agentContext.js";

/**
 * One Chinese verb as the stages of the who-acted chain after the subject read it (agentChinese.ts
 * runs them in order): the text around the verb, whether a done marker sits on its line, and what
 * the chain has already worked out, so each stage reads the same facts the single function did.
 */
export interface ChineseReading {
  readonly plain: string;
  readonly verb: string;
  readonly before: string;
  readonly after: string;
  readonly context: AnswerContext;
  readonly marked: boolean;
  readonly subject: Subject;
  /** A 了 or 过 of the verb's own right after it (after a result complement such as 完 or 好). */
  readonly doneRightAfter: boolean;
  /** The sentence's text before the verb's own clause, separators kept. */
  readonly earlierClauses: string;
}
