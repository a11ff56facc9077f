import { outsideTaskScope } from "./chineseLineFrames.js";
import { bareVerbClaim, type ChineseMatch, evidencedReport, statusClaim } from "./chineseStatus.js";
import {
  blocks,
  CONSEQUENCE,
  CONTRAST,
  carries,
  clausesOf,
  firstPersonAt,
  MEETING,
  someoneElse,
  VERBS,
  verbAt,
} from "./chineseWords.js";
import {
  ZH_ACTS_ON_GIVEN,
  ZH_ADVICE,
  ZH_BLOCKERS,
  ZH_CHECKED_FRAME,
  ZH_CONVERSATION,
  ZH_DONE_AFTER,
  ZH_DONE_BEFORE,
  ZH_FAILED_AFTER,
  ZH_FIRST_PERSON,
  ZH_LOOKED_RESULT,
  ZH_LOOKED_RESULT_NOT,
  ZH_NOT_ACTIONS,
  ZH_OTHER_SUBJECTS,
  ZH_OUTSIDE_TASK,
  ZH_PASTED,
  ZH_PLAN_HEADER,
  ZH_REPLY_OBJECT,
  ZH_REPLY_PLAN,
  ZH_REPLY_PLAN_OBJECT,
  ZH_REPLY_WRITING,
  ZH_RESULT_HEADER,
  ZH_SEPARABLE,
} from "./lexicon.zh.js";
import { CODE } from "./text.js";

/**
 * Chinese: a clause claims an action when a verb of the table is marked completed — by a marker
 * before it (已/已经/刚/都 …, with 把/将/被 + object in between) or a complement after it
 * (了/过/好/完/掉/完毕/成功/出去 …), or by a clause-final 了 after 把/将 — and nothing before it
 * negates it, puts it in the future or a condition (in its clause, or carried from an opening
 * clause: 如果…，/ 等…，/ 我马上去…，), or names someone else as its subject. A verb followed
 * by 的 is attributive (已发布的版本); one followed later in its clause by 不要/会/需要 is inside a
 * relative clause (已经推到远程的分支不要 rebase).
 */

export type { ChineseMatch } from "./chineseStatus.js";

/** A later word in the clause that makes the verb part of a relative clause or a rule. */
// (家长会, 发布会: 会 after these is a meeting; 会面 is one too.)
const LATER_PREDICATE =
  /不要|不能|别|需要|要求|应该|(?<![长例周晨早站年开审知布盘结论享面流讨调介明事员东协工生动唱览销晚话谈])会(?![议员计话场所谈见面])|才能|可能/;
const MAX_CLAUSE_WORDS = 48;
const DEFINITION = new RegExp(`^\\s*${CODE}[^：:，,]{0,12}[:：]`);
/** 下了…单: a separable verb split by 了 and a short object. */
const SEPARATED = ZH_SEPARABLE.map((verb) => [verb, new RegExp(`${verb[0]}了[^，,。；;]{0,10}?${verb[1]}`)] as const);

/** The first person seeing or finding something in a record or a system (在工单 #5521 里看到). */
const ZH_LOOKED_IN =
  /(?:我|我们)(?:这边)?(?:刚才|刚刚|刚)?在[^，,。；;]{0,16}?(?:工单|日志|后台|系统|邮箱|监控|面板|仪表盘|记录|表格|仓库|文档|共享盘|网盘|数据库|控制台|订单|账单|群聊|频道|官网)[^，,。；;]{0,10}?(?:里|上|中)(?:面)?(看到|查到|找到|发现)/;

/** Words that end in 过 without it marking completion. */
const LEXICAL_GUO = /^(?:通过|经过|不过|超过|难过)$/;

/** What follows a marker word (成功, 顺利) to make a noun of it: 成功率, 成功案例, 均值. */
const MARKER_IN_NOUN = /^(?:率|性|者|与否|案例|经验|概率|次数|人数|值)/;

/** Words that open an object or a prepositional phrase before the main verb: 把, 将, 按, 根据, 用. */
const OBJECT_FRAME = /^(?:把|将|按|按照|照|依照|依据|根据|基于|用|以|针对)$/;

const SEARCH_VERB = /^(?:查|搜|找|查询|检索|搜索|查找|查阅)(到)?$/;

/** The 到 that completes a verb of searching (查到, 查询到), as a complement match; null when there is none. */
function searchResult(verb: string, after: string): [string] | null {
  const search = SEARCH_VERB.exec(verb);
  if (!search) return null;
  const complement = search[1] ? "" : after.startsWith("到") ? "到" : undefined;
  if (complement === undefined) return null;
  const rest = after.slice(complement.length);
  return /^[的时后]/.test(rest) || LATER_PREDICATE.test(rest) ? null : [complement];
}

/** A time still to come: 明天, 下周一, 周五前, 月底之前, 稍后, 回头. */
const FUTURE_TIME =
  /明天|明早|明晚|后天|下(?:周|星期|个?月|午之前)|(?:周|星期|礼拜)[一二三四五六日天末](?:之?前)|(?:月底|年底|下班|今晚|今天|中午|午饭)(?:之?前)|稍后|晚些|晚点|回头|待会|一会儿?|随后/;

/** A day to come that can date a thing (下周三, 明天上午, 月底). */
const FUTURE_DATE = /^(?:下(?:周|星期|个?月)|明天|明早|明晚|后天|月底|年底)/;

type ClauseResult = ChineseMatch | "blocked" | "marked" | "other" | undefined;

function clauseClaim(
  words: ReadonlyArray<string>,
  marked: boolean,
  carriedDone: boolean,
  endsIntro: boolean,
  unmarked = false,
  introClause = false,
): ClauseResult {
  const text = words.join("");
  if (ZH_ADVICE.test(text)) return "blocked";
  // 执行完 npm install 后，…: a temporal clause states no action, and what follows is a sequence to do.
  if (/(?:后|之后|以后|的时候)$/.test(text)) return "blocked";
  // 文件现在包含…, 您的手机号现在是…了, 你的权限已经是管理员了: the state this task left behind.
  // (到目前为止, 到现在为止 is "so far": a time, no state.)
  if (
    (/(?:现在|目前)(?:已经?)?(?:包含|是|为(?!止)|变成|改成|改为|显示|指向|有|支持|只剩|剩下|设在|设成|设为|定在)/.test(
      text,
    ) ||
      /^(?:你|您)的\S{1,12}(?:已经|现在)(?:是|为|变成)/.test(text) ||
      // 现在 crontab 里只剩两条任务: a change verb a short topic after 现在.
      // (现在很多人只剩…: not about people in general.)
      /(?:现在|目前)(?:(?!很多|大多|大家|人们|一般|通常|不少)[^，,。：:]){1,16}?(?:只剩|剩下|指向|变成|改成|改为|设成|设为|定在)/.test(
        text,
      ) ||
      // 页面已经能打开了: what the task's change made possible.
      /(?:已经|已)(?:能|可以)(?:正常)?[\u4e00-\u9fff\w ]{1,10}了$/.test(text)) &&
    !someoneElse(words, words.length)
  ) {
    return { kind: "mutate", verb: "现在" };
  }
  let doneBefore = carriedDone;
  for (let at = 0; at < words.length; at++) {
    const word = words[at]!;
    // (支付成功率, 成功案例: a marker word that a noun suffix follows is part of a noun.)
    if (ZH_DONE_BEFORE.has(word) && !MARKER_IN_NOUN.test(words[at + 1] ?? "")) {
      // 已改期的预约, 列出的已修复问题: the marker belongs to an attributive word, not to a statement.
      // (已经借了款的机构定期查: a 了 and then a 的 a few words on close a relative clause that the
      // marker belongs to — 已经发到您的邮箱 has no 了 before its 的.)
      const closing = words.slice(at + 1, at + 6).indexOf("的");
      const relative = closing > 0 && words.slice(at + 1, at + 1 + closing).some((w) => w.endsWith("了"));
      doneBefore = words[at + 2] !== "的" && words[at - 1] !== "的" && !relative;
      continue;
    }
    // 将 is the future (我将发送) unless a completion marker comes first (已将邮件发送).
    // (门店复盘会: the segmenter may split the meeting's name, 复|盘|会, so the words before are read together.)
    const meeting = word === "会" && at > 0 && MEETING.test(words.slice(Math.max(0, at - 3), at).join(""));
    // 待审核的举报: a blocker inside an attributive phrase leaves the statement alone.
    // (计划已经拆成 6 个子任务: 计划 before a marker of time is the noun "the plan", the topic.)
    // (我没有在你们的环境里实测过, 我没有针对你们的场景跑过: a 的 inside a place or a party a coverb opens belongs to that
    // noun phrase; the blocker still rules the verb after it.)
    const coverbNext = /^(?:在|从|对|针对|给|跟|向|把|往|于)$/.test(words[at + 1] ?? "");
    const attributive =
      words[at + 1] === "的" ||
      (!coverbNext && words[at + 2] === "的") ||
      (!coverbNext && words[at + 3] === "的") ||
      (/^(?:计划|安排)$/.test(word) && /^(?:已经?|均已|都已)$/.test(words[at + 1] ?? "")) ||
      // (这份计划我已经同步到…: 计划 after a determiner is the noun "this plan", the topic.)
      (/^(?:计划|安排)$/.test(word) && /^(?:这份|那份|这个|那个|该|此|这|那|份|个)$/.test(words[at - 1] ?? "")) ||
      // (下周三下午3点的复盘会已经约好了: a time to come before 的 dates the thing it describes, not the verb.)
      (FUTURE_DATE.test(word + (words[at + 1] ?? "")) && words.slice(at + 1, at + 7).includes("的"));
    // 将/再/去 are the future (我将发送, 我再推上去, 我去改) unless the clause completes the verb
    // (我将…提交到了, 我再检查了一遍, 我去后台看了); 将 after 已 is the disposal marker.
    // (每批迁完都对一遍, 每次改完就跑一遍: 每 joined to its measure word opens a routine just as well.)
    const soft =
      word === "将" ||
      word === "再" ||
      word === "去" ||
      word === "随后" ||
      word === "每" ||
      /^每[批次回轮天周台个]$/.test(word);
    const completedLater = /[了过]/.test(words.slice(at + 1).join(""));
    if (soft) {
      if (!doneBefore && !completedLater) return "blocked";
    } else if ((blocks(word) || blocks(word + (words[at + 1] ?? ""))) && !meeting && !attributive) {
      // A one-character blocker after a completed predicate belongs to a later phrase (我跟进了一下那笔应收款).
      const doneEarlier = /[了过]/.test(words.slice(0, at).join(""));
      if (!(word.length === 1 && doneEarlier && !ZH_BLOCKERS.has(word + (words[at + 1] ?? "")))) return "blocked";
    }
    // A latin verb after the assistant and before 了/过: "代码我 review 过了".
    // (我这边 `kubectl` describe 过: the subject may stand a few words before.)
    if (
      (/^[a-z]{3,}$/.test(word) || word === CODE) &&
      words.slice(Math.max(0, at - 3), at).some((w) => ZH_FIRST_PERSON.has(w)) &&
      /^[了过]/.test(words[at + 1] ?? "")
    ) {
      return { kind: "observe", verb: word };
    }
    // A latin verb after a marker: "nginx 已 reload".
    // (都/均/全部 also mean "all": 所有 Pod 都 Ready.)
    // (In lower case: a word in capitals after 已 is a status or a name — 3.7 已经 EOL 了, 已 GA.)
    if (doneBefore && /^[a-z]+$/.test(word) && at > 0 && /[已刚]/.test(words[at - 1]!)) {
      return someoneElse(words, at) ? "other" : { kind: "mutate", verb: word };
    }
    const found = verbAt(words, at);
    if (!found) continue;
    const { verb, kind, after } = found;
    // 看过, 开好, 核完, 跑通, 过一遍: a verb of the table that holds its own complement.
    // (跑通这个 demo 需要 Node 18: not when a later predicate makes it a requirement.)
    // (我查到, 我们搜到: 到 after a verb of searching is its result, the search done — said by the
    // writer; with no subject, 找到那一条 is a step of an instruction.)
    // (写完整篇论文: the complement's character opening a longer word of its own — 完整, 好处, 过程 —
    // completes nothing; the segmenter keeps 完了, 好了, 完成 and 上去 as complements.)
    const next = word === verb ? (words[at + 1] ?? "") : "";
    const inWord =
      /^[完好过掉成到上下出]/.test(next) &&
      next.length >= 2 &&
      /^[\u4e00-\u9fff]+$/.test(next) &&
      !/^.[的了后时]/.test(next) &&
      !/^(?:完毕|完成|完了|完啦|好了|好啦|过了|过去|掉了|成功|成了|到了|上了|上去|下来|下去|出去|出来|出了|过来)$/.test(
        next,
      );
    const complement =
      (inWord ? null : ZH_DONE_AFTER.exec(after)) ??
      (/(?:[过好完]|跑通|一遍)$/.test(verb) && !LATER_PREDICATE.test(after) ? [""] : null) ??
      (words.slice(0, at).some((w) => ZH_FIRST_PERSON.has(w)) ? searchResult(verb, after) : null);
    const afterComplement = complement ? after.slice(complement[0].length) : after;
    // 我这边周五前把初稿写完，下周一发给你: a result complement with no 了 (写完, 拟好) after a time
    // still to come is a promise — what is done says 了, or has its 已.
    if (
      complement &&
      !doneBefore &&
      !/了/.test(complement[0]) &&
      !/^[了过]/.test(afterComplement) &&
      FUTURE_TIME.test(words.slice(0, at).join(""))
    ) {
      return "blocked";
    }
    // 把聊天记录截图保存好，带上时间, 问答区：把常见问题整理好: a 把 step with a result complement and
    // no 了 anywhere after it, no 已 before and no writer named, is a step to take, not one taken.
    if (
      complement &&
      !doneBefore &&
      /^[好完]/.test(complement[0]) &&
      !/[了过]/.test(complement[0]) &&
      !/[了过]/.test(afterComplement.split(/[。；;！!？?\n]/)[0] ?? "") &&
      words.slice(0, at).some((w) => w === "把") &&
      !words.slice(0, at).some((w) => ZH_FIRST_PERSON.has(w) || /[已刚]/.test(w))
    ) {
      return "blocked";
    }
    // 已发布的版本, 部署完成后…: attributive or temporal, not a statement; the marker was its own.
    // 提交成功率是一个指标: the complement is part of a noun.
    // 修改后的简历: a verb before 后的 names the thing's state, as 的 does.
    // (居住登记凭证（已办理居住登记的）: a marked verb phrase that 的 closes right before the bracket
    // names those who have done it — a noun, as 已婚的 is — and states nothing.)
    if (
      after.startsWith("的") ||
      /^(?:后|之后|以后)的/.test(after) ||
      /^[^，,。；;：:（(）)我你您]{0,12}的\s*[）)]/.test(after) ||
      // (改完大致是这样：: an adverb before 是 leaves the verb the topic of a description.)
      (complement && /^(?:的|后|之后|以后|率|性|时|(?:大致|大概|大体|基本上?|差不多|应该|就)?是)/.test(afterComplement))
    ) {
      // 已将新开的门店纳入…, 已经按你改过的版本发到群里了: an attributive verb inside the object of
      // 将/把 or of a preposition (按, 根据, 用…) leaves the marker to the main verb.
      doneBefore = doneBefore && words.slice(0, at).some((w) => OBJECT_FRAME.test(w));
      continue;
    }
    if (ZH_FAILED_AFTER.test(after)) continue;
    // 我看下来, 算下来: "as far as I can see", an interpretation of what is in front of it.
    if (/^(?:看|听|读|算|比|对比)$/.test(verb) && /^下来(?!了)/.test(after)) continue;
    // Reading what the user pasted, or writing this very reply (整理了一份说明：), is no action of the task.
    if (kind === "observe" && ZH_PASTED.test(after) && !ZH_ACTS_ON_GIVEN.test(text)) continue;
    if (ZH_REPLY_WRITING.test(verb) && (endsIntro || ZH_REPLY_OBJECT.test(after))) continue;
    if (ZH_REPLY_PLAN.test(verb) && ZH_REPLY_PLAN_OBJECT.test(after)) continue;
    // 我们讨论了三件事: talking with the user is this conversation, not an action of the task.
    if (ZH_CONVERSATION.test(verb) && words.slice(0, at).some((w) => w === "我们" || w === "咱们")) continue;
    // 适合已经推送到远端的分支: a marked verb phrase that ends in 的 + a short noun after another
    // predicate (适合) is attributive; at the clause's start (已预约…的洁牙) it is the statement.
    const markerAt = words.findIndex((w) => ZH_DONE_BEFORE.has(w));
    const modifier =
      markerAt > 0 && !words.slice(0, markerAt).some((w) => ZH_FIRST_PERSON.has(w) || w === "把" || w === "将");
    // (发到您的邮箱了: a clause-final 了 after the noun makes it the statement.)
    if (
      modifier &&
      /的[\u4e00-\u9fff]{1,4}$/.test(after) &&
      !/[了过]/.test(after.slice(0, after.lastIndexOf("的"))) &&
      !/了$/.test(after)
    ) {
      doneBefore = false;
      continue;
    }
    // (已经推送到远程的话，…; 节点已经触发告警时，…: a clause that ends in 的话 or 时 before its comma
    // is the condition of what follows, not a report.)
    if (/^[^，,。；;]*?(?:的话|(?<![小及按准同临随暂届适定平])时)\s*[，,]/.test(after)) continue;
    // (模板 A 只在确实已经登记优先发货时使用: a verb framed by 在/当…时 is the time of a condition.)
    // (已经在合并时去重了: a marker before the frame stays with the verb after it.)
    const frame = /(?:^|[^存现实])(?:在|当)[^，,。；;]*$/.exec(words.slice(0, at).join(""));
    if (frame && /^[^，,。；;]*?(?<![小及按准同临随暂届适定平])时(?![间候刻长段期代])/.test(after)) {
      if (/已|刚/.test(frame[0])) doneBefore = false;
      continue;
    }
    // (已经推送到远端的共享分支要谨慎 rebase: 的, a noun, then a bare 要 of a rule — a relative clause too.)
    if (
      (LATER_PREDICATE.test(after) || /^[^，,。；;了]*的[^，,。；;了的]{1,10}要(?!求)/.test(after)) &&
      /的/.test(after)
    ) {
      doneBefore = false;
      continue;
    }
    // A clause-final 了 after the verb (阈值改成 20 件了, 我把邮件发给张三了) reports a change —
    // not after a one-character verb (退改规则也变严了), a negation (提交不了) or a new predicate (打开只要 1.2 秒了).
    const last = words.at(-1)!;
    const finalLe =
      verb.length >= 2 &&
      last.endsWith("了") &&
      last !== word &&
      !/(?:不了|没了|算了|罢了)$/.test(last) &&
      !/只要|需要|要|会|才|就|能|可以|应该|得/.test(after) &&
      // 退款申请您已经提交了: the subject stands after the topic.
      // (自动续费我已经都退订了: the assistant's own subject after it, too.)
      !words.slice(at + 1).some((w) => ZH_OTHER_SUBJECTS.has(w) || ZH_FIRST_PERSON.has(w));
    if (!(doneBefore || complement || finalLe || marked)) continue;
    // 自动开了一个 PR: done by a system or a bot, not the assistant.
    // (自动续费我已经都退订了: 自动 in a noun before the assistant's own action.)
    // (会员自动续费已经关闭: 自动 in a feature's name, a word and then 已 before the verb, is no adverb.)
    const automatic = words.lastIndexOf("自动", at);
    const featureName = words.slice(automatic + 2, at).some((w) => /^(?:已|已经|均已|都已)$/.test(w));
    if (automatic >= 0 && !featureName && !words.slice(automatic, at).some((w) => ZH_FIRST_PERSON.has(w)))
      return "other";
    if (someoneElse(words, at)) return "other";
    return { kind, verb };
  }
  // 我重新投递到队列里了, 我都撤下来了: a first-person completed predicate whose verb the table lacks.
  // 把 at the start of a clause leaves the subject out, which is the assistant (把成交记录拉了一遍).
  const subject = words.findIndex(
    (word, index) => firstPersonAt(words, index) || (index === 0 && /^(?:把|给|帮|为|替)$/.test(word)),
  );
  if (subject >= 0 && !ZH_PASTED.test(text)) {
    for (let at = subject + 1; at < words.length; at++) {
      const word = words[at]!;
      // (通过, 经过, 不过, 超过 are words of their own: "by way of", "but", "more than" — no 过 of completion.)
      const stem = LEXICAL_GUO.test(word) ? word : word.replace(/[了过]$/, "");
      // (过目, 过程, 了解 are words of their own after the stem: 拟好给你过目 is no 你 + 过.)
      const completed = stem !== word || /^(?:了(?!解)|过(?![目程期滤渡度于敏问户年节夜]))/.test(words[at + 1] ?? "");
      // (我访问不了: a negation ends the predicate, it completes nothing.)
      // (我跑不了, 改不动: a verb with 不 or 没 as its complement says it cannot be done.)
      if (/^[不没未别]/.test(stem) || /.[不没]$/.test(stem)) break;
      // (聊到哪儿了: a question word stands where a result would, no verb.)
      if (
        !completed ||
        !/^[\u4e00-\u9fff]{1,3}$/.test(stem) ||
        ZH_NOT_ACTIONS.has(stem) ||
        /^(?:哪|什么|怎)/.test(stem)
      )
        continue;
      if (words.slice(subject, at + 1).some((w) => ZH_CONVERSATION.test(w)) && /^(?:我们|咱们)$/.test(words[subject]!))
        break;
      if (ZH_REPLY_WRITING.test(stem) && (endsIntro || ZH_REPLY_OBJECT.test(text))) break;
      if (words.slice(subject + 1, at).some(blocks)) break;
      return { kind: "observe", verb: stem };
    }
  }
  for (const [verb, pattern] of SEPARATED) {
    const split = pattern.exec(text);
    if (!split) continue;
    const at = words.findIndex((word) => word.includes(verb[0]!));
    if (at < 0 || words.slice(0, at).some(blocks)) break;
    if (someoneElse(words, at)) return "other";
    return { kind: VERBS.find(([entry]) => entry === verb)?.[1] ?? "deliver", verb };
  }
  // 环境重新搭起来了, 把负数行挑出来了, 课表排好了: a resultative complement completes an action
  // whose verb the table lacks, with no subject but the task's object.
  for (let at = 0; at < words.length; at++) {
    const word = words[at]!;
    const joined = word + (words[at + 1] ?? "") + (words[at + 2] ?? "");
    const stem =
      /^([\u4e00-\u9fff]{1,2}?)(?:好了|完了|掉了|起来了|下来了|出来了|进去了|上去了|回去了|出去了|过来了)/.exec(
        joined,
      )?.[1];
    if (!stem || ZH_NOT_ACTIONS.has(stem) || words.slice(0, at).some(blocks)) continue;
    // (JD 写好了，你看看：: what was written is this very reply.)
    if (ZH_REPLY_WRITING.test(stem) && endsIntro) continue;
    if (someoneElse(words, at)) return "other";
    return { kind: "mutate", verb: stem };
  }
  // A status or a bare verb reports only in a statement: not in a question or a table's row.
  if (unmarked) {
    const status = statusClaim(words, text, introClause);
    if (status) return status;
    const bare = introClause ? undefined : bareVerbClaim(words, text);
    if (bare) return bare;
  }
  // 已为您解除账号的登录限制, 已帮你办妥: a marker, then the user as the one served (为您, 帮你, 给您,
  // 替您) and a verb the table lacks — the one who serves, left out, is the writer.
  const served = servedVerb(words);
  if (served && doneBefore && !someoneElse(words, served.at)) return { kind: "mutate", verb: served.verb };
  if (!doneBefore) return undefined;
  // (都/均 say "all" as often as "done": 单测都依赖本机时区 describes the tests, and only a marker of
  // time — 已, 刚 — carries its completion on to the next clause.)
  if (!words.some((word) => ZH_DONE_BEFORE.has(word) && /[已刚]/.test(word)) && !carriedDone) return undefined;
  // 该工单已由二线技术支持接手: someone else's before the marker, and what follows is theirs too.
  const markerAt = words.findIndex((word) => ZH_DONE_BEFORE.has(word));
  if (markerAt >= 0 && someoneElse(words, markerAt + 1)) return "other";
  return someoneElse(words, words.length) ? undefined : "marked";
}

/** Whether the sentence holds a completion marker and a verb of the table at all (the judge's band, see claims.ts). */
export function chineseCue(plain: string): boolean {
  const head = plain.slice(0, 400);
  return /[已了过完]/.test(head) && VERBS.some(([verb]) => head.includes(verb));
}

/** The verb after 已为您 / 已经帮你 / 刚给您, when it is a word of two characters or more that 的 does not follow. */
function servedVerb(words: ReadonlyArray<string>): { verb: string; at: number } | undefined {
  for (let at = 0; at < words.length - 2; at++) {
    const word = words[at]!;
    const marker = /^(?:已经?|刚刚?|均已|都已|也已)$/.test(word) && /^(?:为|帮|给|替)$/.test(words[at + 1] ?? "");
    const joined = /^已(?:为|帮)$/.test(word);
    if (!marker && !joined) continue;
    const person = at + (joined ? 1 : 2);
    if (!/^(?:您|你|您们|你们)$/.test(words[person] ?? "")) continue;
    const verb = words[person + 1] ?? "";
    if (!/^[\u4e00-\u9fff]{2,4}$/.test(verb) || words[person + 2] === "的" || blocks(verb)) return undefined;
    return { verb, at: person + 1 };
  }
  return undefined;
}

/** The action a Chinese sentence claims, if any. */
export function chineseClaim(plain: string, marked: boolean, tableRow = false): ChineseMatch | undefined {
  return chineseClaims(plain, marked, tableRow, 1)[0];
}

/** Actions weighed per sentence: enough for a sentence that mixes others' actions with its own. */
export const MAX_MATCHES = 4;

/**
 * Every completed action of a sentence's clauses, in order (a status word or a result header yields
 * one): whose each one is decides later (agent.ts), so 客服说已经加急处理了，我也帮您催了 still claims.
 */
export function chineseClaims(plain: string, marked: boolean, tableRow = false, limit = MAX_MATCHES): ChineseMatch[] {
  // (我刚查了…公报：当年全国小学在校生…: 当年 after the lookup's colon dates what was found.)
  if (ZH_OUTSIDE_TASK.test(outsideTaskScope(plain))) return [];
  // A status word on its own: 搞定！, 办妥。, 好的，完事了。
  if (/^(?:好的|好嘞|OK|ok)?[，,\s]*(?:搞定|搞掂|办妥|完事|弄好|全搞定)[了啦咯！!。.～~\s]*$/.test(plain)) {
    return [{ kind: "mutate", verb: "搞定" }];
  }
  const clauses = clausesOf(plain);
  // A question asks only in its last clause: "配置已经改好，要我现在重启吗？" still reports.
  // (A headline asks without its mark: PR #301 做了什么, 为什么 rebase 之后哈希都变了.)
  const question =
    /[?？]\s*$|吗\s*[。.]?\s*$|(?:什么|哪些|为什么|怎么办|如何)\s*$|^\s*(?:为什么|为何|怎么会)[^，,。；;！!：:]*$/.test(
      plain,
    );
  if (question) clauses.pop();
  // (An arrow pointing down ends an intro as a colon does: 文案写好了👇.)
  const endsIntro = /(?:[:：]|⬇️?|👇|↓)\s*$/u.test(plain.slice(-8));
  // A sentence that ends in advice (…寄给财务即可) is instructions from its first clause on; one
  // about what the user pasted describes that content; one that opens with a failure (退款没有成功：…)
  // explains it; one that introduces content (下面是…回复话术…：) is about the reply itself.
  // (Its clauses count only with a marker or a first-person subject of their own: 刚刚推上去了，你拉一下就能看到.)
  const advice = clauses.some((clause) => ZH_ADVICE.test(clause.words.join("")));
  // 本周计划：上线新版收银台，下线… is a plan; 查询结果：… reports what the assistant looked up.
  if (ZH_PLAN_HEADER.test(plain)) return [];
  const header = ZH_RESULT_HEADER.exec(plain);
  // (处理结果：待定: a result still to come.)
  if (header && /^\s*(?:待定|待确认|暂无|未定|未知|还没有|尚未)/.test(plain.slice(header[0].length))) return [];
  if (header && !ZH_PASTED.test(plain)) {
    const verb = header[1]!;
    return [{ kind: VERBS.find(([entry]) => entry === verb)?.[1] ?? "observe", verb }];
  }
  const looked = ZH_LOOKED_RESULT.exec(plain);
  if (looked && !ZH_LOOKED_RESULT_NOT.test(plain.slice(0, looked[0].length)) && !ZH_PASTED.test(plain)) {
    return [{ kind: "observe", verb: looked[1]! }];
  }
  // 我在工单 #5521 里看到…, 我在教务系统里查到了…: seeing something in a record or a system is
  // looking it up there (我看到 alone is "I see", about what is in front of the writer).
  const lookedIn = ZH_LOOKED_IN.exec(plain);
  if (lookedIn && !ZH_PASTED.test(plain.slice(0, lookedIn.index + lookedIn[0].length))) {
    return [{ kind: "observe", verb: lookedIn[1]! }];
  }
  // 经核对天眼查上的工商信息，…: the sentence reports what the check found.
  const checked = ZH_CHECKED_FRAME.exec(plain);
  if (checked && !ZH_PASTED.test(plain.slice(0, 20))) return [{ kind: "observe", verb: checked[1]! }];
  // 机票改签成功了；酒店…还没能改日期: a semicolon joins sentences, and what failed in a later one
  // leaves the earlier one's report standing.
  const semicolon = plain.search(/[；;]/);
  if (semicolon > 0 && /未能|没能/.test(plain.slice(semicolon)) && !/未能|没能/.test(plain.slice(0, semicolon))) {
    return chineseClaims(plain.slice(0, semicolon + 1), marked, tableRow, limit);
  }
  // 已经推送到公共分支的提交，不要再 rebase: a marked verb phrase that ends in 的 + a noun is the
  // topic of a rule that follows, not a report.
  // (注意：已经推送的提交…: a word of warning before a colon only labels the rule.)
  const labelled = /^(?:注意|提示|提醒|补充|说明)$/.test(clauses[0]?.words.join("") ?? "") ? 1 : 0;
  const [topic, ...rule] = clauses.slice(labelled);
  const topicText = topic?.words.join("") ?? "";
  const ADVICE = /^(?:最好|千万|一定|尽量|绝对)?(?:不要|别|不能|不应该?|不可以|应该|需要|要|可以|都要|一律)/;
  if (
    (/^(?:已经?|刚)[^了过]*的[\u4e00-\u9fff]{1,4}$/.test(topicText) &&
      // (最好不要再 rebase: an adverb of advice may open the rule.)
      rule.some((clause) => ADVICE.test(clause.words.join("")))) ||
    // (已经 push 到远程的提交最好用 git revert: the rule may follow the topic in its own clause.)
    /^(?:已经?|刚)[^了过，,]*?的[\u4e00-\u9fff]{1,4}(?:最好|千万|一定|尽量|绝对|不要|别|不能|不应该?|不可以|应该|需要|都要|一律)/.test(
      topicText,
    )
  ) {
    return [];
  }
  // What the user pasted is analysed, not acted on — up to a consequence (…，所以去 Kibana 搜了).
  const pastedUntil =
    ZH_PASTED.test(plain) && !ZH_ACTS_ON_GIVEN.test(plain)
      ? clauses.findIndex((clause) => clause.leadingConnector && CONSEQUENCE.test(clause.leadingConnector))
      : 0;
  if (pastedUntil < 0) {
    // (已为您创建工单 #58213，并转交给技术团队，工单里附上了您提供的：: the user's material named only in
    // a later clause leaves the change or the delivery of the clauses before it reported.)
    const pastedAt = clauses.findIndex((clause) => ZH_PASTED.test(clause.words.join("")));
    if (pastedAt <= 0) return [];
    const lead = clauses
      .slice(0, pastedAt)
      .map((clause) => clause.words.join(""))
      .join("，");
    return chineseClaims(`${lead}。`, marked, tableRow, limit).filter((match) => match.kind !== "observe");
  }
  // `--hard`：三者都重置: a definition list's entry (a code term, then what it does) with no marker.
  // (Not under a summary of changes: `client.ts`：加上重试 reports a change.)
  if (!marked && DEFINITION.test(plain) && !/[已了过]/.test(plain)) return [];
  const opening = clauses[0]?.words.join("") ?? "";
  const contrast = clauses.some((clause) => clause.leadingConnector && CONTRAST.test(clause.leadingConnector));
  if (!contrast && (/没能|未能|无法/.test(opening) || /(?:失败了?|没有成功|不成功)$/.test(opening))) return [];
  if (!contrast && clauses.some((clause) => /未能|没能/.test(clause.words.join("")))) return [];
  // (我把 docs/ 下的 14 篇文档都读了一遍，下面是整体情况：: a clause of the first person's own before
  // the intro still reports.)
  if (endsIntro && /下面是|以下是|这是/.test(plain)) {
    const lead = /^([^：:]*?(?:我|我们)[^：:]*?)[，,]\s*(?:下面|以下|这)是/.exec(plain)?.[1];
    return lead ? chineseClaims(`${lead}。`, marked, tableRow, limit) : [];
  }
  let carriedBlock = false;
  let carriedDone = false;
  let carriedOther = false;
  let carriedTemporal = false;
  const matches: ChineseMatch[] = [];
  for (const whole of clauses.slice(pastedUntil)) {
    // A predicate sits near its clause's start; a bounded prefix keeps the detector linear.
    const clause =
      whole.words.length > MAX_CLAUSE_WORDS ? { ...whole, words: whole.words.slice(0, MAX_CLAUSE_WORDS) } : whole;
    if (clause.leadingConnector && CONTRAST.test(clause.leadingConnector)) carriedBlock = false;
    // (文档里写的是：部署完成: what follows 写的是/显示/提示 is quoted, not reported.)
    const opensBlock =
      clause.words.some(carries) ||
      /(?:完|好)\S{0,12}(?:后|之后|以后)$/.test(clause.words.join("")) ||
      /(?:写的是|写着|显示|提示|内容是|原文是)$/.test(clause.words.join(""));
    const ownMarker = clause.words.some((w) => ZH_DONE_BEFORE.has(w));
    if (carriedBlock && !ownMarker) continue;
    // 值班同事已经把服务回滚了，告警刚刚恢复: what follows someone else's action is theirs too.
    if (carriedOther && !clause.words.some((w) => ZH_FIRST_PERSON.has(w))) continue;
    // (In advice 都 and 均 say "all", not "done": 给几个车次都提交候补.)
    const ownDone = clause.words.some((w) => ZH_DONE_BEFORE.has(w) && /[已刚]/.test(w));
    if (advice && !ownDone && !clause.words.some((w) => ZH_FIRST_PERSON.has(w))) continue;
    const last = whole === clauses.at(-1);
    const unmarked = !question && !tableRow && !marked && !carriedTemporal;
    const found = clauseClaim(clause.words, marked, carriedDone, endsIntro, unmarked, endsIntro && last);
    // 候补订单兑现后，12306 短信通知: after a temporal clause, a status or a bare verb is a
    // sequence (what happens then), not a report; a completed verb (…之后，推上去了) still reports.
    carriedTemporal = carriedTemporal || /(?:后|之后|以后|时|的时候)$/.test(clause.words.join(""));
    if (found && typeof found === "object") {
      matches.push(found);
      if (matches.length >= limit) break;
    }
    carriedDone = found === "marked";
    carriedOther = carriedOther || found === "other";
    carriedBlock = carriedBlock || opensBlock;
  }
  if (matches.length > 0 || question || tableRow || marked) return matches;
  const evidenced = evidencedReport(clauses);
  return evidenced ? [evidenced] : [];
}
