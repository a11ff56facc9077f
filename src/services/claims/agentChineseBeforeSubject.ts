import {
  CLAUSE_SPLIT,
  completedByMarker,
  lastClauseOf,
  ZH_ASIDE_VALUE_BEFORE,
  ZH_CLEFT_AFTER,
  ZH_CLEFT_EARLIER,
  ZH_CONDITION_CLAUSE,
  ZH_COUNTED_BEFORE,
  ZH_DECLINED_FOR_READER,
  ZH_DEGREE_BEFORE,
  ZH_FIRST,
  ZH_LETTER,
  ZH_LISTED_AHEAD,
  ZH_LISTED_OTHERS,
  ZH_NO_NEED_BEFORE,
  ZH_NOTHING_TOUCHED_YET,
  ZH_NOUN_AFTER,
  ZH_OFFER_QUESTION,
  ZH_ONCE_GIVEN_BEFORE,
  ZH_PREMISE_BEFORE,
  ZH_RENAMED,
  ZH_RULE_LABEL,
  ZH_SOURCE_SAYS,
  ZH_SUITS_BEFORE,
  ZH_TURNED_DOWN,
  ZH_TURNED_DOWN_LATER,
  ZH_UNABLE_BEFORE,
} from "./agentChineseCues.js";
import type { Attribution } from "./agentContext.js";
import { chineseClauseSubject } from "./chineseClauseSubjects.js";
import { chineseNamedDoer } from "./chineseNamedDoers.js";
import { chineseNoStep } from "./chineseNoStep.js";
import { zhBlocked, zhConceded } from "./chineseObstacles.js";
import { chineseOtherSpeaker } from "./chineseOtherSpeakers.js";
import { chineseOthersDecided } from "./chineseOthersDecided.js";
import { chineseOtherVoice } from "./chineseOtherVoices.js";

/**
 * Chinese, the first stage of the who-acted chain (agentChinese.ts runs the stages in order): the
 * frames that decide before the sentence's subject is read — a letter for the user, others' voices
 * and named doers, conditions and clefts, asides, parties listed, rules under a label, counts, what
 * the writer declines or judges, and what a summed-up source says. The first check that answers
 * wins, so their order decides outcomes.
 */
export function chineseBeforeSubject(
  plain: string,
  verb: string,
  before: string,
  after: string,
  marked: boolean,
): Attribution | undefined {
  if (ZH_LETTER.test(plain)) return { agent: "user", reason: "a letter written for the user" };
  const otherVoice = chineseOtherVoice(plain, verb, before, after);
  if (otherVoice) return otherVoice;
  const namedDoer = chineseNamedDoer(plain, verb, before, after);
  if (namedDoer) return namedDoer;
  const clauseSubject = chineseClauseSubject(verb, before, after);
  if (clauseSubject) return clauseSubject;
  const noStep = chineseNoStep(plain, verb, before, after);
  if (noStep) return noStep;
  const obstacle = zhConceded(before, after) ?? zhBlocked(plain, before, after);
  if (obstacle) return obstacle;
  const otherSpeaker = chineseOtherSpeaker(plain, before);
  if (otherSpeaker) return otherSpeaker;
  const othersDecided = chineseOthersDecided(plain, before, after);
  if (othersDecided) return othersDecided;
  // (您反映的情况我们了解了，…: 了解 closed by 了 at the end of its clause is understanding what was
  // told — 了解了一下, looking into it, goes on past the 了.)
  if (verb === "了解" && /^了\s*(?:[，,。；;！!]|$)/.test(after))
    return { agent: "none", reason: "what the writer understands" };
  // (已经推送到远程的话，…; 节点已经触发 `NodeDown` 时，…: a clause that ends in 的话 or 时 before its
  // comma, with no 了 after the verb, is the condition of what follows, not a report.)
  if (ZH_CONDITION_CLAUSE.test(after)) return { agent: "none", reason: "a condition ending in 的话 or 时" };
  // (…还不行的话，麻烦您回复…，我们转给技术同事排查: after a clause that ends in 的话, an unmarked step
  // is what will be done if the condition holds — an offer, not a report.)
  if (
    !marked &&
    /的话\s*[，,][^。；;！!？?]*$/.test(before) &&
    !/[了已刚]/.test(before.slice(before.lastIndexOf("的话"))) &&
    !/^[完好掉上下出到成]?[了过]/.test(after) &&
    !/[了过]/.test(after.split(CLAUSE_SPLIT)[0] ?? "")
  )
    return { agent: "none", reason: "a step offered under a condition ending in 的话" };
  // (pod 重启了 3 次是 Kubernetes 自己做的: a cleft after the verb, in its own clause, names who did it.)
  const cleftActor = ZH_CLEFT_AFTER.exec(after.split(/[，,；;。]/)[0] ?? "")?.[1]?.trim();
  if (!marked && cleftActor && !ZH_FIRST.test(cleftActor)) {
    return { agent: "third party", reason: `the one a cleft after the verb names: ${cleftActor}` };
  }
  // (那次扩容是 HPA 自动触发的：…副本数从 3 扩到了 8: after a cleft that names who did it, the
  // clauses that go on tell what that one did — unless a first person takes over.)
  const earlierCleft = ZH_CLEFT_EARLIER.exec(before);
  if (
    !marked &&
    earlierCleft &&
    !ZH_FIRST.test(earlierCleft[1] ?? "") &&
    !ZH_FIRST.test(before.slice(earlierCleft.index + earlierCleft[0].length))
  ) {
    return { agent: "third party", reason: `the one a cleft before names: ${earlierCleft[1]?.trim()}` };
  }
  // (水资源费（现已改为水资源税）: a renaming told in an aside right after a noun gives the thing's
  // present name, news of the world, unless the writer or the user is in the aside.)
  const aside = /[（(]([^（()）]{0,16})$/.exec(before)?.[1];
  if (!marked && aside !== undefined && ZH_RENAMED.test(verb) && !/[我咱你您]/.test(aside)) {
    return { agent: "none", reason: "a thing's present name in an aside" };
  }
  // (所以现在微软、Okta 等都改成了数字匹配: parties listed with 、 and closed by 等 are others who
  // acted, as 很多银行 are — before the verb, or after a 现在 that opens their change.)
  const listed = ZH_LISTED_OTHERS.exec(lastClauseOf(before)) ?? (verb === "现在" ? ZH_LISTED_AHEAD.exec(after) : null);
  if (!marked && listed && !ZH_FIRST.test(listed[0])) {
    return { agent: "third party", reason: `others listed as the subject: ${listed[0].trim()}` };
  }
  // (超时时间只设了 1 秒 in an aside: a value that is only so much, set by whoever configured it, explains
  // a cause — it reports no change.)
  if (
    !marked &&
    ZH_ASIDE_VALUE_BEFORE.test(before) &&
    /^(?:设|设置|配|配置|调|开)$/.test(verb) &&
    /^了\s*\d/.test(after)
  ) {
    return { agent: "none", reason: "a value set, given in an aside" };
  }
  // (回滚条件：…超过 0.5%，立即回滚: a line under the label of a condition or a rule says when to act.)
  if (!marked && ZH_RULE_LABEL.test(plain) && !completedByMarker(before, after)) {
    return { agent: "none", reason: "a condition or a rule under its label" };
  }
  // (118种已确认元素, 3 个已关闭工单: a count, then 已 and the verb right before a noun, describes the
  // things counted.)
  if (ZH_COUNTED_BEFORE.test(before.replace(/\s+/g, "")) && ZH_NOUN_AFTER.test(after)) {
    return { agent: "none", reason: "attributive participle after a count" };
  }
  // (帮你绕过实名认证这个不行: what the writer names and then turns down is declined, not done.)
  if (/(?:帮|替|为)(?:你|您)\s*$/.test(before) && ZH_TURNED_DOWN.test(after)) {
    return { agent: "none", reason: "what the writer turns down" };
  }
  // (我觉得文章对这一点讲得比较到位: a verb after 得 and a word of degree says how well something was
  // done — a judgment, no step reported.)
  if (ZH_DEGREE_BEFORE.test(before)) return { agent: "none", reason: "a complement of degree, a judgment" };
  // (整篇论文由我代写然后以你的名义提交，这违反…，我不能这么做: a step the writer names with no
  // completion and then says it cannot do that way is the request declined.)
  if (!marked && ZH_TURNED_DOWN_LATER.test(after)) return { agent: "none", reason: "what the writer turns down" };
  // (我不能帮你把这篇已经发表的论文改写后作为你的论文提交: what the writer says, in the verb's own
  // clause, it cannot or will not do for the user is declined — an 已 inside a 的 phrase on the way
  // describes the object, it does not complete the step.)
  if (ZH_DECLINED_FOR_READER.test(before) && !/^[完好掉上下出到成]?[了过]/.test(after))
    return { agent: "none", reason: "what the writer turns down" };
  if (!marked && ZH_UNABLE_BEFORE.test(before)) return { agent: "none", reason: "what cannot be done" };
  if (!marked && ZH_PREMISE_BEFORE.test(before)) return { agent: "none", reason: "a premise, or what a step avoids" };
  // (看完你的需求，我建议分三步重构，目前都还没动代码：: a sentence that says nothing was touched yet
  // reports none of its verbs as done, unless one is completed right where it stands.)
  if (
    ZH_NOTHING_TOUCHED_YET.test(plain) &&
    !/已|刚/.test(lastClauseOf(before)) &&
    !/^[完好掉上下出到成]?了/.test(after)
  )
    return { agent: "none", reason: "the sentence says nothing was touched yet" };
  // (这些数据挺适合做成一页趋势图: what something suits is a judgment of it, no step taken.)
  if (!marked && ZH_SUITS_BEFORE.test(before)) return { agent: "none", reason: "what something suits, a judgment" };
  // (会议室不用再订了: what the writer says need not be done is not reported as done.)
  if (ZH_NO_NEED_BEFORE.test(before)) return { agent: "none", reason: "what need not be done" };
  // (把参会人和时间告诉我，我帮你写好邀请正文: a step that waits on what the user is asked to give is offered.)
  if (!marked && ZH_ONCE_GIVEN_BEFORE.test(before)) return { agent: "none", reason: "offered once the user gives it" };
  // (名单现在是一整张表，要不要我再按班级拆开？: the state named before a change the writer offers is how
  // things stand, not what the writer left behind.)
  if (verb === "现在" && ZH_OFFER_QUESTION.test(plain) && !/[了已]/.test(plain.split(CLAUSE_SPLIT)[0] ?? ""))
    return { agent: "none", reason: "the state before a change offered" };
  // (这篇文章主要讲三点：…难以做到真正的双盲: the source summed up says it, no one reports it.)
  if (ZH_SOURCE_SAYS.test(before) && !ZH_FIRST.test(before.replace(ZH_SOURCE_SAYS, "")))
    return { agent: "third party", reason: "what a source summed up says" };
  return undefined;
}
