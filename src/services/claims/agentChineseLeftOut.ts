import {
  bareThenVerb,
  CLAUSE_SPLIT,
  completedByMarker,
  disposerOf,
  lastClauseOf,
  otherActorFirst,
  ZH_ADVICE_BEFORE,
  ZH_AUTOMATIC,
  ZH_CHECK_COMPLEMENT,
  ZH_DATE,
  ZH_FIRST,
  ZH_HOW_TO,
  ZH_INFERENCE,
  ZH_ONCE_DONE,
  ZH_PLAN_FRAME,
  ZH_PROBLEM_THEN_ADVICE,
  ZH_RELAY_FRAME,
  ZH_SEQUENCE_AFTER,
  ZH_STEP_CLAUSE,
  ZH_SUDDEN_BEFORE,
  ZH_THIRD_PERSON_FIRST,
  ZH_TITLED_SUBJECT,
  ZH_VERSION,
  ZH_WEIGHED_TOPIC,
} from "./agentChineseCues.js";
import type { ChineseReading } from "./agentChineseReading.js";
import type { Attribution } from "./agentContext.js";
import { zhNotStatus } from "./statusShape.js";

/**
 * Chinese, the stage of the who-acted chain for a verb whose subject is not the writer
 * (agentChinese.ts runs the stages in order): an action weighed as a topic, a state to check or
 * wait for, an attributive 的, a step of a sequence, a how-to or advice, an actor carried from an
 * earlier clause, a system acting by itself, and then the subject left out — an instruction, a
 * plan, the subject of an earlier clause, or else a status line of the writer's. The first check
 * that answers wins, so their order decides outcomes.
 */
export function chineseLeftOut(reading: ChineseReading): Attribution | undefined {
  const { plain, verb, before, after, marked, subject, doneRightAfter, earlierClauses } = reading;
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
  return undefined;
}
