import {
  CLAUSE_SPLIT,
  disposerOf,
  otherActorFirst,
  withoutOwnThings,
  ZH_AGENT_EARLIER,
  ZH_CAUSE_AFTER,
  ZH_CAUSE_BEFORE,
  ZH_CHANNEL_SPEAKER,
  ZH_CHECK_VERB,
  ZH_DATE,
  ZH_EARLIER,
  ZH_FIRST,
  ZH_FROM_RELEASE,
  ZH_INDEFINITE_PERSON,
  ZH_LATELY_DONE,
  ZH_MANY_OTHERS,
  ZH_NO_PERMISSION,
  ZH_ORG_THEN,
  ZH_PASSIVE_AGENT,
  ZH_RELEASE_CHANGE,
  ZH_REPORTED,
  ZH_SHARE_VERB,
  ZH_SOURCE_SUBJECT,
  ZH_SPEAK_VERB,
  ZH_STATING_VERB,
  ZH_STATUS_AFTER,
  ZH_THING_SUBJECT,
  ZH_THIS_PIECE,
  ZH_USER,
} from "./agentChineseCues.js";
import type { ChineseReading } from "./agentChineseReading.js";
import { type Attribution, unmarkedAgent } from "./agentContext.js";
import { zhNotStatus } from "./statusShape.js";

/**
 * Chinese, the last stage of the who-acted chain, for a subject stated before the verb that is
 * neither the writer nor left out (agentChinese.ts runs the stages in order): who that subject is —
 * someone in a channel, a passive agent, an indefinite person, a source, the user, a system, a
 * release, a thing, an organisation — or this task's object marked done, the writer's own check,
 * a terse status, and at last what the answer's shape says of an unmarked verb. The first check
 * that answers wins, so their order decides outcomes.
 */
export function chineseStatedSubject(reading: ChineseReading): Attribution {
  const { plain, verb, before, after, context, marked, subject, earlierClauses } = reading;
  const lastClause = before.split(/[，,；;：。！!]|(?<!\d):|:(?!\d)/).at(-1) ?? before;
  if (ZH_SPEAK_VERB.test(verb) && ZH_CHANNEL_SPEAKER.test(lastClause))
    return { agent: "third party", reason: "someone who spoke in a channel" };
  const passive = ZH_PASSIVE_AGENT.exec(before.replace(/\s+/g, "").slice(-16));
  if (passive) return { agent: "third party", reason: `passive agent: ${passive[0]}` };
  // 已经有人提过 issue, 别人也改过: an indefinite person as the subject is someone other than the assistant.
  const someone =
    ZH_INDEFINITE_PERSON.exec(lastClause.replace(/\s+/g, "")) ?? ZH_MANY_OTHERS.exec(lastClause.replace(/\s+/g, ""));
  if (someone) return { agent: "third party", reason: `someone else as subject: ${someone[0]}` };
  const earlier = ZH_AGENT_EARLIER.exec(before);
  if (earlier) return { agent: "third party", reason: `passive agent: ${earlier[0]}` };
  if (ZH_REPORTED.test(before)) return { agent: "third party", reason: "what a source reports" };
  // 官方公告已经确认, 厂商已证实: a source as the subject of a verb of stating says something; it is
  // no object of this task reported done (公告已发布 is — a verb of stating is what sets them apart).
  if (ZH_STATING_VERB.test(verb) && ZH_SOURCE_SUBJECT.test(lastClause.replace(/\s+/g, ""))) {
    return { agent: "third party", reason: "a source states it" };
  }
  if (ZH_USER.test(lastClause)) return { agent: "user", reason: "the user as subject" };
  const actor = otherActorFirst(lastClause);
  if (actor) return { agent: "third party", reason: `someone else as subject: ${actor}` };
  // (会员自动续费已经关闭, 自动续费已经帮您关闭了: 自动 inside the subject, a feature's name before its 已, is no adverb.)
  if (
    /自动/.test(lastClause) &&
    !/自动[\u4e00-\u9fff]{1,4}(?:已经?|均已|都已)(?:帮|为|替)?(?:您|你)?\s*$/.test(lastClause.replace(/\s+/g, ""))
  )
    return { agent: "third party", reason: "done automatically by a system" };
  if (ZH_CAUSE_BEFORE.test(before)) return { agent: "none", reason: "inside a clause that explains a cause" };
  if (ZH_CAUSE_AFTER.test(after)) return { agent: "none", reason: "an event explained as a cause" };
  if (ZH_DATE.test(before)) return { agent: "none", reason: "a dated event of the world" };
  if (marked) return { agent: "assistant", reason: "done marker on its line" };
  // 这份总结已经发到 Slack 的频道: this very piece, sent or shared, is the writer's delivery even in
  // an answer that sums up a source — the source wrote the interviews, not the summary.
  if (ZH_THIS_PIECE.test(lastClause.replace(/\s+/g, "")) && ZH_SHARE_VERB.test(verb)) {
    return { agent: "assistant", reason: "this task's object, marked done: this reply's own piece, sent" };
  }
  if (context.relayed) return { agent: "third party", reason: "narrated in a summary of a source" };
  // 补丁上周已经合入上游: a subject's event at a time of its own before this task.
  if (ZH_EARLIER.test(lastClause)) return { agent: "none", reason: "an earlier event with a time of its own" };
  // (`ubuntu-latest` 最近切到了 24.04: a stated subject's change "lately", right before the verb, is
  // news of the world — this task's own steps are not dated so.)
  if (!/^\s*(?:最近|近期)/.test(lastClause) && /\S\s*(?:最近|近期|前段时间|前阵子)\s*$/.test(lastClause))
    return { agent: "none", reason: "an earlier event with a time of its own" };
  // (GitHub Actions 的 `ubuntu-latest` 这周已经切换到 24.04: a product or a vendor named in Latin
  // letters, changed at a time of its own this week or this year, is news of the world too.)
  if (/^\s*[A-Z]/.test(lastClause) && ZH_LATELY_DONE.test(lastClause))
    return { agent: "none", reason: "a named product's change at a time of its own" };
  // 补偿券已经发到您的账户了, 会议邀请已发送给 6 位参会人: the task's object, marked done.
  // (您的照片在 6 月 20 日 21:15 提交: the user's own step at a time of its own.)
  const yours = /(?:你|您)的/.test(lastClause) && !/在\s*\d/.test(lastClause);
  // 订单已经发货了，我这边没有权限修改…, 这份文件标注了“保密”，我不能帮你上传: a state the
  // assistant says it has no permission over, or cannot act on, is the premise of a refusal, not its own work.
  if (ZH_NO_PERMISSION.test(after)) return { agent: "none", reason: "a state the assistant has no permission over" };
  // 2021-12-28：2.17.1 修复了 JDBC Appender 相关的 CVE: a release as the subject changed the software.
  // (Not what was done to the release: v3.1.0 已发布到 npm.)
  if (
    !marked &&
    ZH_RELEASE_CHANGE.test(verb) &&
    ((/^了/.test(after) &&
      /^\s*(?:[A-Za-z][\w-]*\s*)?v?\d+(?:\.\d+)+\s*(?:版本?)?(?:中|里)?\s*(?:也|又|还)?\s*$/i.test(lastClause)) ||
      // (6.8.1 起已修复: a release named as where a change starts dates it by version, as a changelog does.)
      ZH_FROM_RELEASE.test(lastClause))
  ) {
    return { agent: "none", reason: "a release of the software as the subject" };
  }
  // 这个桶开启了版本控制, 你们的 Rollout 配置了金丝雀策略: a thing as the subject of a verb that
  // takes an object describes what the thing has or does — what was done to this task's object
  // leaves the object out (订单取消了) or marks it done (文件已经改好).
  const thing = lastClause.replace(/\s+/g, "");
  if (ZH_THING_SUBJECT.test(thing) && /^[了过]\s*[^\d，,。；;：:！!]/.test(after)) {
    return { agent: "none", reason: "a thing described by what it has or does" };
  }
  // 出版社2008年的版本已经把署名改成了…: the subject of a 把 sentence is the one who acts on what
  // follows 把 — a stated subject there is no object of this task reported done.
  // (修 bug 的时候顺手把…删了: a time and an adverb before 把 are no subject.)
  const disposer = disposerOf(lastClause);
  if (disposer && !yours) return { agent: "third party", reason: `the subject of a 把 sentence: ${disposer}` };
  // 人民文学出版社后来的版本署名已改为…: an organisation dated by a time of its own (后来, 当年, 2008
  // 年) owns what its clause says was done — history, not this task's object.
  if (ZH_ORG_THEN.test(lastClause.replace(/\s+/g, ""))) {
    return { agent: "third party", reason: "an organisation at a time of its own" };
  }
  // (投诉已经按你确认的版本通过「12345」网上渠道提交了: a prepositional phrase between the marker and
  // the verb leaves the marker the verb's, after a short topic — a longer one may name who acted.)
  // (MySQL 8.0 已经彻底去掉了查询缓存: a topic before 已 is what was acted on only when the verb has no
  // object of its own — 退款已发放; when 了 is followed by the verb's object, the topic is who acted,
  // and a topic that is neither the writer nor the user is someone else.)
  if (
    !marked &&
    !yours &&
    // (状态页和频道都已经更新了说明, 看板上已经建好了: places listed with 都, or a place named by
    // 上/里, are where the writer acted; 已经为您提交了 serves the user.)
    /^[^\s已都也]+[^已]*?(?<![都也上里中内])\s*已经?\s*\S{0,4}$/.test(lastClause.trim()) &&
    !/[你您]/.test(lastClause) &&
    !ZH_FIRST.test(lastClause) &&
    !/(?:到|给|成|为|进|入|至|在)$/.test(verb) &&
    /^了\s*[\u4e00-\u9fffA-Za-z]/.test(after)
  ) {
    return { agent: "third party", reason: "the topic acts: a verb with an object of its own after 已" };
  }
  if (
    /(?:已经?|均已|都已|全部已)\s*\S{0,4}$/.test(lastClause) ||
    /^[\u4e00-\u9fff]{1,6}(?:已经?|均已|都已|全部已)(?:按照?|通过|用|在|向|根据|依照|经由)[^，,。；;]{0,40}$/.test(
      lastClause.replace(/\s+/g, ""),
    ) ||
    yours
  ) {
    return { agent: "assistant", reason: "this task's object, marked done" };
  }
  // (Up to the end of the verb's own clause: a first person in a later clause — 邮箱写成了
  // @compnay.com，我怕发错人就先停下了 — acts there, not here.)
  const upToClause = withoutOwnThings(`${before}${verb}${after.split(CLAUSE_SPLIT)[0] ?? ""}`);
  if (/(?:我(?![国省市县校])|我们)(?:已经?|也|还|刚|又|都)?[^，,。；;你您他她]{0,12}[了过]/.test(upToClause)) {
    return { agent: "assistant", reason: "first person" };
  }
  // 数据清洗完成：, 标书格式按公司模板调整好了：, deploy 完成：: the heading of a list of what was done.
  if (
    /[：:]\s*$/.test(plain) &&
    (/^(?:完成|完毕|成功|好|了|结果)|^\S{0,2}了/.test(after) ||
      (/(?:完成|完毕|成功)$/.test(verb) && /^\s*[：:]\s*$/.test(after)))
  ) {
    return { agent: "assistant", reason: "heading of a list of what was done" };
  }
  const terse =
    ZH_STATUS_AFTER.test(after) ||
    (/(?:完成|完毕|成功|办妥|搞定)$/.test(verb) && /^\s*(?:[，,。；;：:!！]|$)/.test(after));
  if (terse && (context.report || context.sentences <= 3)) {
    return { agent: "assistant", reason: "terse status after the task's object" };
  }
  // 三台机器都巡检过了, Terraform plan 看过: a check completed with 过 and nobody else named is the
  // writer's own — an explanation states what is true, not what was looked at.
  const checkedWith过 = verb.endsWith("过")
    ? /^(?:了|一遍|一下)?\s*(?:[，,。；;：:!！]|$)/.test(after)
    : /^过(?:了|一遍|一下)?\s*(?:[，,。；;：:!！]|$)/.test(after);
  if (ZH_CHECK_VERB.test(verb.replace(/过$/, "")) && checkedWith过 && !context.relayed) {
    return { agent: "assistant", reason: "a check completed, nobody else named" };
  }
  // (值班的老周已经扩了两台节点，CPU 在 3:40 左右恢复正常: an unmarked event after someone else's
  // action in the same sentence is what came of it, not the writer's work.)
  const earlierActor = earlierClauses
    .split(CLAUSE_SPLIT)
    .map((part) => otherActorFirst(part.trim()))
    .find((actor) => actor !== undefined);
  if (!marked && subject === "stated" && earlierActor && !ZH_FIRST.test(plain)) {
    return { agent: "third party", reason: `the outcome of someone else's action: ${earlierActor}` };
  }
  // (阿里云在华东2做了宿主机热迁移, 供应商那边换了包装: a named subject, then a place, a side or a
  // means, then a verb with an object of its own after 了, is the one who acted — someone else
  // unless it is the writer or the user; a timeline's clock time may open the clause: 02:31 周涛在….)
  if (
    !marked &&
    subject === "stated" &&
    !/[已刚都也]/.test(lastClause) &&
    !/[你您我咱]/.test(lastClause) &&
    !/(?:到|给|成|为|进|入|至|在)$/.test(verb) &&
    /^了\s*[\u4e00-\u9fffA-Za-z《]/.test(after) &&
    /^\s*(?:那一?年|当年|\d{4}\s*年|\d{1,2}[:：]\d{2})?\s*[\u4e00-\u9fffA-Za-z][\u4e00-\u9fffA-Za-z]{1,11}?\s*(?:在[^，,。；;]{1,12}|那边|通过[^，,。；;]{1,12}|按[^，,。；;]{1,12})\s*$/.test(
      lastClause,
    ) &&
    !/(?:上|里|中|内|下)\s*$/.test(lastClause)
  ) {
    return { agent: "third party", reason: "a named subject acting on an object of its own" };
  }
  // (The same frames refuse an unmarked status read from a short answer alone.)
  const unshaped = marked ? undefined : zhNotStatus(plain, verb, before, after);
  if (unshaped) return unshaped;
  return unmarkedAgent(context, plain.length <= 40);
}
