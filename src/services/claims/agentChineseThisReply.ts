import {
  CLAUSE_SPLIT,
  lastClauseOf,
  ZH_ARRANGE_TEXT,
  ZH_ARRANGING_DONE,
  ZH_COMPOSE,
  ZH_ERROR_RAISED,
  ZH_FIRST,
  ZH_FOR_READER_BEFORE,
  ZH_IN_THIS_REPLY,
  ZH_LEFT_BLANK,
  ZH_OPINION_BEFORE,
  ZH_OUTSIDE_REPLY,
  ZH_PIECE_OPENED,
  ZH_PIECE_VERB,
  ZH_READER_OPTION_CLAUSE,
  ZH_REPLY_BELOW,
  ZH_REPLY_BELOW_ASIDE,
  ZH_REPLY_OPENED,
  ZH_REPLY_TEXT_VERB,
  ZH_SHOWN_HERE_NEXT,
  ZH_TEXT_EDIT_VERB,
  ZH_TEXT_TOPIC,
  ZH_WORDING_AFTER,
  ZH_WORDS_ARRANGED,
  ZH_WRITER_CLAUSE,
  ZH_WRITTEN_HERE,
} from "./agentChineseCues.js";
import type { ChineseReading } from "./agentChineseReading.js";
import type { Attribution } from "./agentContext.js";

/**
 * Chinese, the stage of the who-acted chain that comes once the subject is known and the frames of
 * chineseFrames.ts have passed (agentChinese.ts runs the stages in order): a verb whose work is
 * this very reply — text arranged, composed, put above or below, opened by a colon, a wording
 * chosen — and the last reasons a first person's verb is not the writer's report (an error the
 * system answered with, a passive naming someone else, an opinion). The first check that answers
 * wins, so their order decides outcomes.
 */
export function chineseThisReply(reading: ChineseReading): Attribution | undefined {
  const { verb, before, after, context, marked, subject } = reading;
  // 我按事项归了一下类, 听不清的一段我标成了“[不清晰]”: in an answer over text the user pasted, the
  // writer arranging or marking that text is writing this reply, not acting on the task's objects.
  if (
    subject === "first person" &&
    // (房东在微信里的意思我帮你理了一下：: someone's words arranged under the colon are this reply too.)
    (context.pasted || (ZH_WORDS_ARRANGED.test(before) && /[:：]\s*$/.test(after))) &&
    ZH_ARRANGE_TEXT.test(verb) &&
    !/[系邮库盘表]/.test(after.split(CLAUSE_SPLIT)[0] ?? "")
  )
    return { agent: "none", reason: "arranging the pasted text in this reply" };
  // 我排了一个初稿：, 我拟了一版行程：: the writer composing what the colon opens is writing this reply.
  // (给你排了一个 5 天的行程，节奏偏轻松：: the one who serves the user is the writer, and an aside may
  // come before the colon.)
  if (
    (subject === "first person" || /(?:给|帮|为|替)(?:你|您)\s*$/.test(before)) &&
    ZH_COMPOSE.test(verb) &&
    (ZH_REPLY_BELOW.test(after) || ZH_REPLY_BELOW_ASIDE.test(after))
  ) {
    return { agent: "none", reason: "the reply itself, introduced" };
  }
  // 邮件正文我改好放在上面了, 改写后的版本贴在下面: what the writer put above or below is in this
  // reply — writing it is writing the reply, as "I've listed the options below" is.
  if (!marked && ZH_IN_THIS_REPLY.test(after))
    return { agent: "none", reason: "the reply itself, shown above or below" };
  // 正文我已经写在上面了, 纪要我整理在上面了: a text composed straight into its place in this reply,
  // even with 已, is this reply — nothing outside it was touched.
  // (正文我已经在上面写好了: the place may come before the verb too.)
  if (
    ZH_REPLY_TEXT_VERB.test(verb) &&
    (ZH_WRITTEN_HERE.test(after) ||
      (/(?:在|到)(?:上面|下面|上方|下方|上边|下边|文末|这里)\s*$/.test(before) && /^(?:好|完)?了/.test(after)))
  )
    return { agent: "none", reason: "the reply itself, written above or below" };
  // (通知稿已经按你的意思改成了正式语气，内容在上面: a text revised in words, whose next clause says it
  // stands above or below, is this reply too — a file or a setting changed is not a text shown here.)
  if (ZH_TEXT_TOPIC.test(before) && ZH_TEXT_EDIT_VERB.test(verb) && ZH_SHOWN_HERE_NEXT.test(after))
    return { agent: "none", reason: "the reply itself, a text revised and shown above or below" };
  // 给你排了一个不太赶的版本：, 帮你捋了一下群里的内容：…, 我摘了关键部分）: the writer composing or
  // arranging for the user, with a colon in the same sentence opening the result, is writing this
  // reply — whatever it is called — unless the clause names somewhere outside it (a system, a sheet).
  if (
    (subject === "first person" || ZH_FOR_READER_BEFORE.test(before)) &&
    ZH_REPLY_TEXT_VERB.test(verb) &&
    ZH_REPLY_OPENED.test(after) &&
    // (我已经把 Airflow 上的 DAG 列了一遍：: a 把 object is the task's thing acted on.)
    !/把/.test(lastClauseOf(before)) &&
    !ZH_OUTSIDE_REPLY.test(after.split(/[：:]/)[0] ?? "")
  )
    return { agent: "none", reason: "the reply itself, opened by a colon" };
  // (写了一首小诗：…, 给你的战役做了一个大纲草案，每次约 3–4 小时：, 做了一份预算表的模板，可以直接复制
  //到 Excel 里：: a counted piece of writing made by the writer and opened by a colon is the text that
  // follows in this reply — unless the clause sends or stores it somewhere; where the reader may paste it is theirs.)
  if (
    ZH_PIECE_VERB.test(verb) &&
    ZH_PIECE_OPENED.test(after) &&
    ZH_WRITER_CLAUSE.test(lastClauseOf(before)) &&
    !ZH_OUTSIDE_REPLY.test((after.split(/[：:]/)[0] ?? "").replace(ZH_READER_OPTION_CLAUSE, ""))
  )
    return { agent: "none", reason: "the reply itself, a piece of writing opened by a colon" };
  // (以下内容来自值班组的报告，我只是做了整理：: the writer saying it only arranged the words disclaims
  // any other act — its arranging is this reply, unless the same sentence sends or stores the result;
  // 按小时做了汇总, without 只是, sums data up and is still found.)
  if (
    verb === "做" &&
    /(?:只是|只|仅|仅仅|不过是)[^，,]{0,12}$/.test(lastClauseOf(before)) &&
    ZH_ARRANGING_DONE.test(after)
  )
    return { agent: "none", reason: "the reply itself, words arranged" };
  // 我这边拉私有仓库报了 403, 链接我打不开，跳转到了登录页: an error raised or a redirect is what a
  // system answered an attempt with — the attempt failed, nothing was done.
  if (!marked && ZH_ERROR_RAISED.test(`${verb}${after}`))
    return { agent: "none", reason: "an error or a redirect the system answered with" };
  // 薪资范围我空着了，…再补上, 装机和价格我先用了定性表述: the writer leaving a blank or choosing a
  // wording acts on words, and words it writes are this reply's — unless the sentence puts them somewhere.
  if (
    subject === "first person" &&
    !marked &&
    (ZH_LEFT_BLANK.test(verb) || ZH_WORDING_AFTER.test(after)) &&
    !ZH_OUTSIDE_REPLY.test(`${lastClauseOf(before)}${after}`)
  )
    return { agent: "none", reason: "the wording of this reply" };
  // (附件在我这边被安全策略拦下了: a passive with its agent names who acted; the 我 is only where.)
  // (被 only: 由 is also a piece of words such as 路由器.)
  const passiveHere = /被(?!我|咱)([^\s，,。；;：:]{1,12}?)$/.exec(lastClauseOf(before).replace(/\s+/g, "").slice(-16));
  if (subject === "first person" && passiveHere && !ZH_FIRST.test(passiveHere[1]!))
    return { agent: "third party", reason: `passive agent: ${passiveHere[0]}` };
  // (我觉得还漏了一点：…: what the writer thinks, unmarked, is a judgment, not a step reported.)
  if (!marked && ZH_OPINION_BEFORE.test(before)) return { agent: "none", reason: "a judgment of the writer" };
  return undefined;
}
