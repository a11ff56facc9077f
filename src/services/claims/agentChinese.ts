import {
  bareThenVerb,
  CLAUSE_SPLIT,
  chineseSubject,
  completedByMarker,
  disposerOf,
  lastClauseOf,
  otherActorFirst,
  withoutOwnThings,
  ZH_ADVICE_BEFORE,
  ZH_AGENT_EARLIER,
  ZH_ARRANGE_TEXT,
  ZH_ARRANGING_DONE,
  ZH_ASIDE_VALUE_BEFORE,
  ZH_AUTOMATIC,
  ZH_CAUSE_AFTER,
  ZH_CAUSE_BEFORE,
  ZH_CHANNEL_SPEAKER,
  ZH_CHECK_COMPLEMENT,
  ZH_CHECK_VERB,
  ZH_CLEFT_AFTER,
  ZH_CLEFT_EARLIER,
  ZH_COMPOSE,
  ZH_CONDITION_CLAUSE,
  ZH_COUNTED_BEFORE,
  ZH_DATE,
  ZH_DECLINED_FOR_READER,
  ZH_DEGREE_BEFORE,
  ZH_DOER_IN_BRACKETS,
  ZH_EARLIER,
  ZH_ERROR_RAISED,
  ZH_FIRST,
  ZH_FOR_READER_BEFORE,
  ZH_FROM_RELEASE,
  ZH_GROUP_BEFORE,
  ZH_HOW_TO,
  ZH_IN_THIS_REPLY,
  ZH_INDEFINITE_PERSON,
  ZH_INFERENCE,
  ZH_LATELY_DONE,
  ZH_LEFT_BLANK,
  ZH_LETTER,
  ZH_LISTED_AHEAD,
  ZH_LISTED_OTHERS,
  ZH_MANY_OTHERS,
  ZH_NO_NEED_BEFORE,
  ZH_NO_PERMISSION,
  ZH_NOTHING_TOUCHED_YET,
  ZH_NOUN_AFTER,
  ZH_OFFER_QUESTION,
  ZH_ONCE_DONE,
  ZH_ONCE_GIVEN_BEFORE,
  ZH_OPINION_BEFORE,
  ZH_ORG_THEN,
  ZH_OUTSIDE_REPLY,
  ZH_PARTY_BEFORE,
  ZH_PARTY_NOT,
  ZH_PARTY_NOTICE_AFTER,
  ZH_PARTY_WORDS_AFTER,
  ZH_PASSIVE_AGENT,
  ZH_PIECE_OPENED,
  ZH_PIECE_VERB,
  ZH_PLAN_FRAME,
  ZH_PLAN_OPENS,
  ZH_PREMISE_BEFORE,
  ZH_PROBLEM_THEN_ADVICE,
  ZH_READER_OPTION_CLAUSE,
  ZH_RELAY_FRAME,
  ZH_RELEASE_CHANGE,
  ZH_RENAMED,
  ZH_REPLY_BELOW,
  ZH_REPLY_BELOW_ASIDE,
  ZH_REPLY_OPENED,
  ZH_REPLY_TEXT_VERB,
  ZH_REPORTED,
  ZH_RULE_LABEL,
  ZH_SEQUENCE_AFTER,
  ZH_SHARE_VERB,
  ZH_SHOWN_HERE_NEXT,
  ZH_SOURCE_SAYS,
  ZH_SOURCE_SUBJECT,
  ZH_SPEAK_VERB,
  ZH_STATING_VERB,
  ZH_STATUS_AFTER,
  ZH_STEP_CLAUSE,
  ZH_SUDDEN_BEFORE,
  ZH_SUITS_BEFORE,
  ZH_TEXT_EDIT_VERB,
  ZH_TEXT_TOPIC,
  ZH_THING_SUBJECT,
  ZH_THIRD_PERSON_FIRST,
  ZH_THIS_PIECE,
  ZH_TITLED_SUBJECT,
  ZH_TURNED_DOWN,
  ZH_TURNED_DOWN_LATER,
  ZH_UNABLE_BEFORE,
  ZH_USER,
  ZH_VERSION,
  ZH_WEIGHED_TOPIC,
  ZH_WORDING_AFTER,
  ZH_WORDS_ARRANGED,
  ZH_WRITER_CLAUSE,
  ZH_WRITTEN_HERE,
} from "./agentChineseCues.js";
import { type AnswerContext, type Attribution, around, unmarkedAgent } from "./agentContext.js";
import { chineseClauseSubject } from "./chineseClauseSubjects.js";
import { chineseFrameAgent } from "./chineseFrames.js";
import { chineseNamedDoer } from "./chineseNamedDoers.js";
import { chineseNoStep } from "./chineseNoStep.js";
import { zhBlocked, zhConceded } from "./chineseObstacles.js";
import { chineseOtherSpeaker } from "./chineseOtherSpeakers.js";
import { chineseOthersDecided } from "./chineseOthersDecided.js";
import { chineseOtherVoice } from "./chineseOtherVoices.js";
import { zhFramed, zhNotStatus, zhPromised, zhTimelineEntry } from "./statusShape.js";

/**
 * Chinese: who performed a completed action — the assistant (我/我们, a status line with the
 * subject left out, the task's object marked done), the user (你/您, a how-to step, advice), a third
 * party (被/由 + agent, a named actor as subject, a source being relayed) or nobody (history, a cause).
 */

/** Chinese: who performed the action `verb` names in `plain`. */
export function chineseAgent(plain: string, verb: string, context: AnswerContext, marked: boolean): Attribution {
  const { before, after } = around("zh", plain, verb);
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
  if (subject === "first person") return { agent: "assistant", reason: "first person" };
  // 关掉扫描等于让镜像带着漏洞上线, 关掉 CI 扫描来强行合并，这个我不建议: an action with no marker of
  // its own, named as the topic that the sentence then weighs (等于, 意味着, 这个我不建议), is no report.
  if (!marked && !/已|刚/.test(before) && !/^[^，,。；;]{0,16}了/.test(after) && ZH_WEIGHED_TOPIC.test(after)) {
    return { agent: "none", reason: "an action named as a topic and weighed" };
  }
  // 滚动重启应用，确认连接都已切到新账号, 注销前请确认钱包余额已提现: a marker inside what a verb of
  // checking asks to confirm is the state to look for, not a report (确认函已发至… is a noun).
  if (!marked && ZH_CHECK_COMPLEMENT.test(before)) {
    return { agent: "user", reason: "the state a step asks to check" };
  }
  // 用微信扫这个二维码，等待传输完成: what a step waits for (等待, 等到, 直到) is a state to come.
  if (!marked && !/^[^，,。；;]{0,8}了/.test(after) && /(?:等待|等到|直到)[^，,。；;了]{0,20}$/.test(before)) {
    return { agent: "user", reason: "the state a step waits for" };
  }
  // 已开具的发票: an attributive participle describes a thing, it reports nothing — with a
  // directional complement too (你同事转过来的聊天记录). (加到你的日历里了: 你的 after the verb is the
  // object's owner, not a relative clause.)
  if (/^(?:(?![你您我他她它咱])[\u4e00-\u9fff]|过来|过去|出来|进来|回来|下来|上来|起来)?的/.test(after)) {
    return { agent: "none", reason: "attributive participle" };
  }
  // (已经取了纸质报销凭证的，改签要去车站窗口办理: a clause that ends in 的 right before the comma
  // names the people a rule is for — "those who have…" — it reports nothing. Not with a first
  // person or a 是…的 cleft before it: 邮件是我上午发的，你查收一下 says who sent it.)
  if (/^[^，,。；;是]{0,20}的\s*[，,]/.test(after) && !/[我咱是]/.test(lastClauseOf(before))) {
    return { agent: "none", reason: "a 的 phrase naming whom a rule is for" };
  }
  const completed = doneRightAfter || /^[^，,。；;]{0,8}?了(?!解)/.test(after) || /已|刚/.test(before);
  // (Airflow 一下子跑了 30 个 DAG Run: what happened suddenly or unaccountably is an event the user
  // saw, told with its surprise; nobody reports their own work that way.)
  if (!marked && ZH_SUDDEN_BEFORE.test(lastClauseOf(before))) {
    return { agent: "none", reason: "an event told as sudden" };
  }
  // (整体思路没问题，改完这三处就比较稳了: a bare 完 or 好 and then 就 in the same clause — once it is
  // done, what follows; a condition put to the user, whatever 了 closes the clause.)
  if (!marked && !/已|刚/.test(lastClauseOf(before)) && ZH_ONCE_DONE.test(after)) {
    return { agent: "user", reason: "a condition: once it is done" };
  }
  if (!marked && !completed && ZH_SEQUENCE_AFTER.test(after)) {
    return { agent: "user", reason: "a step in a sequence or an instruction" };
  }
  // (盘完一个区域贴"已盘"标签: a bare 完 and its object, then another verb with no marker in the same
  // clause — done with one, do the next — is a step described, whoever takes it.)
  if (!marked && !completed && !/[了过已]/.test(plain) && bareThenVerb(after)) {
    return { agent: "user", reason: "a step in a sequence or an instruction" };
  }
  if (ZH_HOW_TO.test(plain) && !completed && !marked) return { agent: "user", reason: "a step of a how-to" };
  if (!marked && ZH_ADVICE_BEFORE.test(before)) return { agent: "user", reason: "advice to the user" };
  if (ZH_INFERENCE.test(plain)) return { agent: "none", reason: "an inference from what was shown" };
  // …被 master 进程杀掉并重启，…，就给客户端回: an actor named in an earlier clause carries to a subjectless one.
  const earlierClauses = before.slice(0, before.length - (before.split(CLAUSE_SPLIT).at(-1)?.length ?? 0));
  const carried = /(?:被|由)(?!我|咱)[^，,。；;]{1,12}/.exec(earlierClauses);
  // (关于您账户被限制登录的问题，已经帮您处理好了: a passive inside the topic that 关于/对于 opens names
  // the problem, not who acted after it.)
  const topicOnly =
    carried && /(?:^|[，,。；;])\s*(?:关于|对于|针对)[^，,。；;]*$/.test(earlierClauses.slice(0, carried.index));
  if (carried && !marked && !topicOnly) {
    return { agent: "third party", reason: `actor of an earlier clause: ${carried[0]}` };
  }
  // 迁移在部署过程中自动执行了: a system did it, whatever the subject (自动 as the verb's adverb,
  // not in a noun: 关闭了会员自动续费).
  const ownClause = `${before.split(CLAUSE_SPLIT).at(-1) ?? ""}${after.split(CLAUSE_SPLIT)[0] ?? ""}`;
  // (自动扣款已经帮您关闭了: the one who serves the user, 帮您, is the writer, as a first person is.)
  if (
    !marked &&
    ZH_AUTOMATIC.test(ownClause) &&
    !ZH_FIRST.test(ownClause) &&
    !/(?:帮|为|替)(?:您|你)/.test(ownClause)
  ) {
    return { agent: "third party", reason: "done automatically by a system" };
  }
  if (!marked && ZH_VERSION.test(before)) return { agent: "none", reason: "fixed in a release of the software" };
  // (别 inside 分别, 区别, 特别 is no "don't".)
  if (
    subject === "left out" &&
    !completed &&
    !marked &&
    /要|需要|应该|可以|必须|记得|(?<![分区类特级个告识鉴辨差性派])别|不要/.test(plain)
  ) {
    return { agent: "user", reason: "an instruction with the subject left out" };
  }
  // (点「文件 → 自动答复」，选「发送自动答复」，勾选时间范围并填好起止日期: after steps for the user,
  // an unmarked result complement is one more step.)
  if (!marked && !completedByMarker(before, after) && !/[了过]/.test(earlierClauses)) {
    const parts = earlierClauses.split(CLAUSE_SPLIT).map((part) => part.trim());
    if (parts.some((part) => ZH_STEP_CLAUSE.test(part)))
      return { agent: "user", reason: "a step after steps for the user" };
  }
  // (Before the first person's earlier clauses are weighed: 我的安排是这样的：先备份，再迁移 names a
  // plan whose owner is the writer, and its steps are still to come.)
  if (
    subject === "left out" &&
    !marked &&
    !completedByMarker(before, after) &&
    earlierClauses.split(CLAUSE_SPLIT).some((part) => ZH_PLAN_FRAME.test(part.replace(/\s+/g, "")))
  ) {
    return { agent: "none", reason: "a step of a plan" };
  }
  if (subject === "left out" && !marked && !ZH_FIRST.test(earlierClauses)) {
    // 秦始皇于公元前221年统一六国，建立了秦朝: the subject and time of an earlier clause carry.
    // (它至今仍在工作，已经累计完成了…: the nearest clause that names its subject.)
    const earlierParts = earlierClauses.split(CLAUSE_SPLIT).filter((part) => part.trim() !== "");
    for (const part of earlierParts.reverse()) {
      if (ZH_THIRD_PERSON_FIRST.test(part.trim()))
        return { agent: "third party", reason: "someone else as subject of the sentence: a third person" };
      if (ZH_TITLED_SUBJECT.test(part.trim()))
        return { agent: "third party", reason: "a titled work as subject of the sentence" };
      // (Redis 集群是老陈 20:30 手动扩容的，从 3 分片加到了 6 分片: in a cleft 是…的 the one after 是
      // is who acted, and the clauses after it go on with that actor.)
      const cleft = /^[^，,。；;]{1,20}?是([^，,。；;]+)的$/.exec(part.trim())?.[1];
      const actor = otherActorFirst(part.trim()) ?? (cleft ? otherActorFirst(cleft.trim()) : undefined);
      if (actor) return { agent: "third party", reason: `someone else as subject of the sentence: ${actor}` };
      // (TLS 1.3 把握手从 2-RTT 缩短到 1-RTT，并且去掉了…: the subject of an earlier 把 clause goes on acting.)
      const disposer = disposerOf(part);
      if (disposer && !ZH_FIRST.test(disposer))
        return { agent: "third party", reason: `the subject of an earlier 把 clause: ${disposer}` };
    }

    // 计划是：先补上配置，再跑集成测试，全部通过后提 PR: after a frame that names a plan, or right
    // after a condition of its own (…通过后), a verb with no marker of completion is a step to come.
    if (
      !marked &&
      !completedByMarker(before, after) &&
      (earlierParts.some((part) => ZH_PLAN_FRAME.test(part.trim())) || /(?:之后|以后|后)$/.test(lastClauseOf(before)))
    ) {
      return { agent: "none", reason: "a step of a plan" };
    }
    if (ZH_DATE.test(earlierClauses)) return { agent: "none", reason: "a dated event of the world" };
    // 据快递员反馈，包裹…已经退回站点: what follows a relayed source is the source's.
    if (earlierParts.some((part) => ZH_RELAY_FRAME.test(part.trim())))
      return { agent: "third party", reason: "what a source reports" };
  }
  // (已经帮您在「随申办」上预约好了: the one who serves the user, left out, is the writer — as sure
  // as a first person.)
  if (
    subject === "left out" &&
    /^(?:[^，,。；;]*?(?:已经?|刚刚?|也|都))?(?:帮|为|替)(?:您|你)/.test(lastClauseOf(before))
  ) {
    return { agent: "assistant", reason: "first person" };
  }
  // (…是指你没有读过原始文献, 这封邮件的要点：客户…联系过两次客服: a subjectless verb is a status
  // line only in the shape of one.)
  // (只同步了步数没有心率：检查第 4 步…: what the user sees, named before a colon and the advice for
  // it, is a problem of a troubleshooting list — nobody reports doing it.)
  if (subject === "left out" && !marked && !/[已刚我咱]/.test(before) && ZH_PROBLEM_THEN_ADVICE.test(after)) {
    return { agent: "user", reason: "a problem named before the advice for it" };
  }
  // (先把前两份配好，第三份不着急: 先把…好 with no 了 is the first step advised, not one taken.)
  if (
    subject === "left out" &&
    !marked &&
    /^(?:先|再|然后|最后)把/.test(lastClauseOf(before).trim()) &&
    /^好(?![了啦过])/.test(after) &&
    !/了/.test(after.split(CLAUSE_SPLIT)[0] ?? "")
  )
    return { agent: "user", reason: "a step advised: 先把…好" };
  const refused = subject === "left out" && !marked ? zhNotStatus(plain, verb, before, after) : undefined;
  if (refused) return refused;
  if (subject === "left out") {
    return { agent: "assistant", reason: marked ? "done marker on its line" : "status line with the subject left out" };
  }
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
