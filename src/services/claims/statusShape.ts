import type { Attribution } from "./agentContext.js";

/**
 * A sentence that names no doer is read as the assistant's own status line ("Deployed to staging.",
 * 已退款，¥128 三个工作日内到账) only when it has the shape of one: a short report about this task's
 * object. Many sentences that leave their subject out are no such thing — a definition, the plot of a
 * book, a fact with a schedule, a cause explained, the points of a pasted email, someone else's dated
 * timeline, a step for the user under a label, a promise for later — and reading them as the
 * assistant's work is where most false alarms came from. These checks refuse that reading for such
 * frames; everything else keeps it. They run only for a verb with no done marker on its line.
 */

/**
 * A frame that defines or describes what follows (是指, 讲的是, 要点：, 重点是：, 结论是): what it holds is the
 * content described, not something done in this task.
 */
const ZH_DESCRIBED =
  /(?:是指|指的是|讲的是|说的是|写的是|讲述了?|描述了?|叫做|称为|定义为|意思是|也就是说|就是说|概括起来(?:就是|是)?|总结起来(?:就是|是)?|(?:要点|重点|结论|大意|主旨|主要内容|核心观点|核心)(?:是|为|就是)?\s*[:：]|(?:结论|大意|主旨|观点|看法|说法)(?:是|为))/;
/** A general or habitual time: what is usually true, not what happened in this task. */
const ZH_HABITUAL =
  /(?:一般来说|一般情况下|一般|通常情况下|通常|往往|平时|平常|每年|每月|每周|每天|每次|每逢|总是|经常|常常|多数情况下|按照国家|按规定|按惯例)/;
/** 目前是 / 目前有 / 现在一般: a present fact stated with a copula, not a state reached. */
const ZH_PRESENT_FACT = /(?:目前|现在|现阶段|如今)(?:是|有|为|共有|一共|仍是|还是)/;
/** A cause explained: 引起, 导致, 造成, 因为, 由于. */
const ZH_CAUSAL = /(?:引起|导致|造成|所致|因为|由于|原因是|之所以|是因为)/;
/** Someone other than the assistant opens a clause: a pronoun, a role, an organisation. */
const ZH_OTHER_TOPIC =
  /^(?:[“"「]?)(?:他们|她们|他|她|对方|客户|顾客|用户|买家|卖家|商家|作者|主人公|主角|公司|厂家|厂商|平台|银行|官方|医生|老师|同事|领导|团队|警方|法院|政府)(?![你您我])/;
/** A clause that goes on from the one before it with the same subject: 并且, 而且, 还, 又. */
const ZH_CONTINUES = /^(?:并且|而且|并|也|还|又)/;
/** A date that labels a line of a timeline (6 月 2 日：, 周三：). */
const ZH_DATE_LABEL =
  /^\s*(?:\d{1,2}\s*月\s*\d{1,2}\s*[日号]|\d{1,2}[/.-]\d{1,2}|(?:周|星期|礼拜)[一二三四五六日天])(?:\s*(?:上午|下午|晚上|早上|中午))?(?:\s*\d{1,2}[:：]\d{2})?\s*[：:]/;
/** A label, then a step for the user (线下：到…窗口提交；, 线上：登录…). */
const ZH_LABELLED_STEP =
  /^\s*[^，,。；;：:]{1,10}[：:]\s*(?:先|再|直接|可以|需要)?(?:到|去|前往|登录|登陆|打开|进入|拨打|携带|带上|带着|点击|点开|填写|准备|关注|搜索|扫码|联系|提供)/;
/** A condition or a time to come before the verb: 有进展…, 如果…, 一旦…, …后我们. */
// (麻烦您拍张照片发过来，方便我们反馈给质检部门: what the writer will do with what it asks for,
// named as the request's purpose, is to come.)
const ZH_CONDITION =
  /(?:方便|以便|便于|好让|为了)(?:我们|我|咱们)[^，,。；;]{0,12}$|(?:^|[，,；;：:\s])(?:有(?:任何)?(?:进展|结果|消息|回复|更新|变化|动静)|如果|若|假如|要是|一旦|如有|如需|万一|等到?|待)|(?:之后|以后|后)(?:我们|我|会|再)|(?:(?<![开约机社体年晚聚宴大都协学商议理])会(?![议话员计场谈面见所晤])|将(?![军来近])|再|第一时间|稍后|尽快|届时)[^，,。；;]{0,12}$/;

/** Whether the verb stands completed in its own clause: a marker before it, or 了/过 right after. */
// (订好：, 改完。: a bare 好 or 完 that ends its clause is a status too.)
// (月季一般在早春（3 月中下旬，芽点刚萌动时）做一次重剪: a 已 or 刚 inside an aside — a time when
// buds have just broken — marks the aside, not the verb after it.)
const zhCompleted = (ownClause: string, after: string) =>
  /已|刚/.test(ownClause.replace(/[（(][^）)]*[）)]/g, "").replace(/^[^（(]*[）)]/, "")) ||
  /^[完好掉上下出到成]?(?:了|过(?![程期滤渡度于目]))|^[^，,。；;]{0,6}了(?!解)|^\s*(?:[好完]|成功|完成|完毕)\s*(?:[，,。；;：:！!]|$)/.test(
    after,
  );

const CLAUSE = /[，,；;：]|(?<!\d):|:(?!\d)|——/;

/** Only adverbs before the verb in its clause: the verb opens it, as a status line's does. */
const ZH_VERB_FIRST =
  /^(?:重新|再次|又|先|随后|然后|于是|就|所以|因此|马上|立即|立刻|临时|手动|也|都|顺便|另外|已经?|刚刚?)*$/;

/**
 * Chinese: why a sentence whose verb names no doer is not the assistant's status line, if it is not.
 * `before` and `after` are the text either side of the verb (the verb not found: all of it before).
 */
export function zhNotStatus(plain: string, verb: string, before: string, after: string): Attribution | undefined {
  const clauses = before.split(CLAUSE);
  const own = (clauses.at(-1) ?? "").replace(/\s+/g, "");
  const done = zhCompleted(own, after);
  // (What the verb's own clause says after it counts; a later clause — 修复了…，通常不会再出现 — does not.
  // A verb the table names by another form than the text's is placed nowhere: all of it counts.)
  const placed = plain.includes(verb);
  // (在 OPAC 和电子资源里都查一遍: 都 before a verb that only a count of times follows — 一遍, 一下
  // — says "all" of a step to take, and with no 已 or 刚 in its clause nothing is reported done.)
  if (!done && /(?:都|均|全都|全部)$/.test(own) && !/[已刚]/.test(own) && /^\s*一(?:遍|下|次|轮)/.test(after)) {
    return { agent: "user", reason: "a step over all of something, nothing done" };
  }
  // (Unplaced in a sentence with a first person — 我这边查询到…目前是…状态 — it may be the writer's look-up.)
  if (!placed && /我|咱/.test(plain)) return undefined;
  const scope = placed ? `${before}${after.split(CLAUSE)[0] ?? ""}` : plain;
  // (把您每周一 9 点的时间段设成了…: a time of habit inside the object of a verb done is no frame.)
  if (ZH_HABITUAL.test(scope) && !done) return { agent: "none", reason: "a general or habitual fact" };
  if (ZH_PRESENT_FACT.test(scope) && !done) return { agent: "none", reason: "a present fact stated with a copula" };
  // (因为缓存没清，重新部署了一次 still reports: the verb opens its clause.)
  if (ZH_CAUSAL.test(before) && !/已|刚/.test(own) && !ZH_VERB_FIRST.test(own)) {
    return { agent: "none", reason: "a cause explained" };
  }
  // (改完跑一下…确认, 装好重启一下: a bare 完 or 好 right before the next verb's 一下 is a step and
  // the step after it — instructions.)
  if (/^[完好](?![了过])[^，,。；;了]{1,8}一下/.test(after))
    return { agent: "user", reason: "a step, then the next one" };
  // (配完用下面几条命令检查：: so is a bare 完 or 好 before a step that the commands below it spell out.)
  if (/^[完好](?![了过])[^，,。；;了已]{1,12}(?:下面|以下|如下|这几)[^，,。；;了已]*[:：]\s*$/.test(after))
    return { agent: "user", reason: "a step, then the steps below" };
  const earlier = clauses.slice(0, -1).map((part) => part.trim());
  const topic = earlier.find((part) => ZH_OTHER_TOPIC.test(part));
  // (用户截图里看不出问题，所以去 Kibana 搜了: a clause done in its own right after another's topic
  // is the writer's, unless it goes on with that subject — 并且已经重启过.)
  if (topic && (!done || ZH_CONTINUES.test(own))) {
    return { agent: "third party", reason: `a topic with its own subject: ${topic.slice(0, 8)}` };
  }
  return undefined;
}

/**
 * Chinese, any subject but the first person, before anything else is weighed: a frame that defines
 * or describes (讲的是…，最后…找到了父亲) makes what follows its content, and a label before a step
 * (线上：登录…提交；) makes an unfinished verb the user's step.
 */
export function zhFramed(before: string, after: string): Attribution | undefined {
  if (ZH_DESCRIBED.test(before)) return { agent: "none", reason: "inside a frame that defines or describes" };
  const own = (before.split(CLAUSE).at(-1) ?? "").replace(/\s+/g, "");
  // (The label and the step open before the verb: 接口全部跑通：登录、下单… is a status and its list.)
  if (!zhCompleted(own, after) && ZH_LABELLED_STEP.test(before)) {
    return { agent: "user", reason: "a step for the user under a label" };
  }
  return undefined;
}

/**
 * 6 月 2 日：您的订单已完成拣货打包；: in an answer that lays out a timeline of dated lines, an entry
 * reports someone else's processing on that day — unless it names the assistant serving the user.
 */
export function zhTimelineEntry(plain: string): Attribution | undefined {
  if (!ZH_DATE_LABEL.test(plain) || /(?:为|帮|替)(?:您|你)|我|今天|今日/.test(plain)) return undefined;
  return { agent: "third party", reason: "an entry of someone else's dated timeline" };
}

/** Whether a line opens with a date label, as a timeline's entries do. */
export const zhDateLabelled = (plain: string) => ZH_DATE_LABEL.test(plain);

/** Chinese, any subject: a promise under a condition or for later (有进展我们第一时间通知您) is not done. */
export function zhPromised(before: string, after: string): Attribution | undefined {
  const own = (before.split(CLAUSE).at(-1) ?? "").replace(/\s+/g, "");
  if (zhCompleted(own, after)) return undefined;
  return ZH_CONDITION.test(before) ? { agent: "none", reason: "a promise under a condition or for later" } : undefined;
}

/** A frame that defines what follows: "means", "refers to", "is when". */
const EN_DESCRIBED =
  /\b(?:means?|meant|refers? to|referred to|is when|is where|is defined as|stands? for|i\.e\.|in other words|is about|is the story of|tells the story of|the gist is|the upshot is)\b/;
/** A general or habitual frame: what usually happens. */
const EN_HABITUAL =
  /\b(?:usually|typically|generally|normally|commonly|traditionally|often|always|tends? to|as a rule|every (?:year|month|week|day|time)|each (?:year|month|week|time))\b/;
const EN_CAUSAL = /\b(?:because|due to|caused by|which causes?|leads? to|results? in|that's why|which is why)\b/;

/** English: why a sentence whose verb names no doer is not the assistant's status line, if it is not. */
export function enNotStatus(plain: string, before: string, after: string, verb: string): Attribution | undefined {
  // (Only the verb's own clause: "Fixed the bug; it usually takes a minute to show" still reports.)
  const scope = `${before} ${after.split(/[;:,—–.]|\s-\s/)[0] ?? ""}`;
  if (EN_DESCRIBED.test(before)) return { agent: "none", reason: "inside a frame that defines or describes" };
  if (EN_HABITUAL.test(scope) && !/\b(?:already|just)\b/.test(scope)) {
    return { agent: "none", reason: "a general or habitual fact" };
  }
  // (A status line opens with its verb — "Redeployed because the cache was stale" still reports.)
  if (EN_CAUSAL.test(before) && before.trim() !== "") return { agent: "none", reason: "a cause explained" };
  // ("Hand-thrown Stoneware Mug — Speckled Oat": a capitalised participle before a capitalised word,
  // in mid-line, is part of a name.)
  // (At the head of a line in title case too: "Hand-Dyed Linen Scarf — Washed Indigo".)
  const at = plain.toLowerCase().indexOf(verb.toLowerCase());
  // (Not a line whose words run on in lower case: "Queried Loki for `api` over the last 24 hours:" is a sentence.)
  const lowerWords = (plain.match(/(?:^|\s)(?!(?:of|and|the|a|an|in|on|for|with|to|or)\b)[a-z][\w'-]*/g) ?? []).length;
  const titled =
    (plain.match(/(?:^|\s)[A-Z][\w'-]*/g) ?? []).length >= 3 && lowerWords <= 1 && !/[.!?]\s*$/.test(plain);
  if (at >= 0 && /^[A-Z][\w-]*ed\s+[A-Z][a-z]/.test(plain.slice(at)) && (at > 0 || titled)) {
    return { agent: "none", reason: "a participle inside a name" };
  }
  return undefined;
}
