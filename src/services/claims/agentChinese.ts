import { chineseBeforeSubject } from "./agentChineseBeforeSubject.js";
import {
  CLAUSE_SPLIT,
  chineseSubject,
  lastClauseOf,
  ZH_DOER_IN_BRACKETS,
  ZH_FIRST,
  ZH_GROUP_BEFORE,
  ZH_PARTY_BEFORE,
  ZH_PARTY_NOT,
  ZH_PARTY_NOTICE_AFTER,
  ZH_PARTY_WORDS_AFTER,
  ZH_PLAN_OPENS,
  ZH_SPEAK_VERB,
} from "./agentChineseCues.js";
import { chineseLeftOut } from "./agentChineseLeftOut.js";
import type { ChineseReading } from "./agentChineseReading.js";
import { chineseStatedSubject } from "./agentChineseStated.js";
import { chineseThisReply } from "./agentChineseThisReply.js";
import { type AnswerContext, type Attribution, around } from "./agentContext.js";
import { chineseFrameAgent } from "./chineseFrames.js";
import { zhFramed, zhPromised, zhTimelineEntry } from "./statusShape.js";

/**
 * Chinese: who performed a completed action — the assistant (我/我们, a status line with the
 * subject left out, the task's object marked done), the user (你/您, a how-to step, advice), a third
 * party (被/由 + agent, a named actor as subject, a source being relayed) or nobody (history, a cause).
 *
 * One ordered chain of checks, the first that answers wins, so the order decides outcomes. It runs
 * in stages, one module each, in this order: the frames read before the subject
 * (agentChineseBeforeSubject.ts); here, the subject and what a subject alone settles, then the frames
 * of chineseFrames.ts and statusShape.ts; this reply itself (agentChineseThisReply.ts); a first
 * person; a subject that is not the writer's, or left out (agentChineseLeftOut.ts); and a stated
 * subject (agentChineseStated.ts), which always answers.
 */

/** Chinese: who performed the action `verb` names in `plain`. */
export function chineseAgent(plain: string, verb: string, context: AnswerContext, marked: boolean): Attribution {
  const { before, after } = around("zh", plain, verb);
  const beforeSubject = chineseBeforeSubject(plain, verb, before, after, marked);
  if (beforeSubject) return beforeSubject;
  const subject = chineseSubject(before);
  // (把最近一周的数据发过来，我们从第一条开始看: a thing sent toward the writer, with no completion and
  // no marker, is what the user is asked to send.)
  if (
    !marked &&
    /^(?:过来|给我|给我们)(?![了过])(?:\s*[，,。；;！!]|\s*$|\s*(?:吧|一下))/.test(after) &&
    !/[已了刚]/.test(lastClauseOf(before) ?? "") &&
    subject !== "first person"
  )
    return { agent: "user", reason: "what the user is asked to send" };
  // (船代刚回复：…, 货代刚回复说，船已经开出了: a named party replying or sending hands the sentence to
  // their words; 我刚回复了客户 has the writer as subject, 通知已发： a thing marked done.)
  const partyClause = (lastClauseOf(before) ?? "").replace(/\s+/g, "");
  if (
    subject === "stated" &&
    !marked &&
    ZH_SPEAK_VERB.test(verb) &&
    ((/^(?:回复|答复|回|说|通知|表示|发言)$/.test(verb) && ZH_PARTY_WORDS_AFTER.test(after)) ||
      ZH_PARTY_NOTICE_AFTER.test(after)) &&
    ZH_PARTY_BEFORE.test(partyClause) &&
    !ZH_PARTY_NOT.test(partyClause)
  )
    return { agent: "third party", reason: "a named party's words relayed" };
  // (我的思路是先帮你列出三个城市的对比，然后再筛一遍: a plan named and then 是 with its first step is
  // what the writer means to do, step by step — nothing marked done in it.)
  if (!marked && ZH_PLAN_OPENS.test(before) && !/^[完好掉上下出到成]?(?:了|过)/.test(after))
    return { agent: "none", reason: "a step of a plan" };
  // (已处理（刘洋处理的）, 已回滚（由值班同事操作）: a status whose brackets name who did it is that
  // person's — the writer's own names itself there, 已处理（我处理的）.)
  const doer = ZH_DOER_IN_BRACKETS.exec(after)?.[1];
  if (doer && !ZH_FIRST.test(doer)) {
    return /你|您/.test(doer)
      ? { agent: "user", reason: "the user named in brackets as the one who did it" }
      : { agent: "third party", reason: "a person named in brackets as the one who did it" };
  }
  // (目前部分区已经开通线上申领, 多数银行都已上调了利率: a group of places or bodies that acted on an
  // object is how things stand out there; a group that was acted on, with no object after the verb
  // (部分门店已经通知了), is left to the rules below.)
  if (ZH_GROUP_BEFORE.test(lastClauseOf(before) ?? "") && /^\s*(?:了|过)?\s*[^\s，,。；;！!？?：:、了]/.test(after))
    return { agent: "third party", reason: "a group of places or bodies acting on something" };
  const ownBefore = before.split(CLAUSE_SPLIT);
  // (过 in 过程 or 过期 is no completion.)
  const doneRightAfter = /^[完好掉上下出到成]?(?:了|过(?![程期滤渡度于]))/.test(after);
  const framed = chineseFrameAgent({
    plain,
    verb,
    before,
    after,
    subject,
    marked,
    completed: /已|刚/.test(ownBefore.at(-1) ?? "") || doneRightAfter,
    earlierClauses: ownBefore.slice(0, -1),
  });
  if (framed) return framed;
  // (有进展我们第一时间通知您: a promise under a condition, whoever makes it, reports nothing done.)
  const promised = marked ? undefined : zhPromised(before, after);
  if (promised) return promised;
  const entry = marked || subject === "first person" || !context.timeline ? undefined : zhTimelineEntry(plain);
  if (entry) return entry;
  const described = marked || subject === "first person" ? undefined : zhFramed(before, after);
  if (described) return described;
  const reading: ChineseReading = {
    plain,
    verb,
    before,
    after,
    context,
    marked,
    subject,
    doneRightAfter,
    // (Worked out once here because two stages read it: the left-out subject and the stated one.)
    earlierClauses: before.slice(0, before.length - (before.split(CLAUSE_SPLIT).at(-1)?.length ?? 0)),
  };
  const thisReply = chineseThisReply(reading);
  if (thisReply) return thisReply;
  if (subject === "first person") return { agent: "assistant", reason: "first person" };
  return chineseLeftOut(reading) ?? chineseStatedSubject(reading);
}
