import type { Attribution } from "./agentContext.js";
import { ZH_PERSON } from "./lexicon.zh.js";

/**
 * Chinese: sentences whose completed-looking verb belongs to a voice other than the writer's
 * report — a named party's report or opinion relayed (他报告…已完成, 编剧在映后交流时说，…), a
 * question about what someone said (他们讲了什么), a request the writer restates and turns down
 * (…，我都不能做; 你希望我替你…提交), a plan laid out by week, an entry of history under its year,
 * a leave request written in the user's voice, the conclusions of minutes, what another party
 * is asked to promise, what customers did on their side (用户已付款), a verb that is a noun
 * before another (通知内容), a cause laid out (根源是：…) and the state once the user's step is
 * taken (把时区改回来就正常了). Read first in the chain (agentChineseBeforeSubject.ts), even where a
 * marker says the verb is done: the marker is inside the other voice.
 */

/** Verbs that hand a clause over to what its subject reports, decides or thinks. */
const SPEECH = "(?:说|报告|汇报|确认|宣布|认为|觉得|指出|强调|表示|提到|承认|介绍|解释|透露|判断|反映)";
/** A time or a place of the speaking that may stand between the speaker and the verb: 在映后交流时, 在会上. */
const SPEAKING_WHERE = "(?:在[^，,。；;：:]{1,12}?(?:时|上|里|中))?";
/** Words that may stand between the speaker and the verb of speaking. */
const SPEAKING_ADVERB = "(?:也|还|又|则|随后|接着|当时|明确|反复|最后|主要)?";
/** A third-person pronoun, or a person or body named by its role or surname. */
const THIRD_PERSON = /^(?:他|她|他们|她们|对方)$/;

/** What stands before the verb of speaking, with a time written before it taken off (02:07 他报告). */
const speakerOf = (segment: string) =>
  segment
    .replace(/^\s*(?:\d{1,2}[:：]\d{2}|[\d\s年月日号周一二三四五六七天]+)\s*/, "")
    .replace(/\s+/g, "")
    .replace(new RegExp(`${SPEAKING_WHERE}${SPEAKING_ADVERB}$`), "");

const isThirdParty = (speaker: string) =>
  speaker.length > 0 &&
  !/[我咱你您]/.test(speaker) &&
  (THIRD_PERSON.test(speaker) ||
    ZH_PERSON.test(speaker) ||
    /^[\u4e00-\u9fff]{0,6}(?:编剧|导演|作者|律师|审计方|审计组|审计经理|核心团队|维护者|开发者|组|部|方)$/.test(
      speaker,
    ));

/**
 * Where a third party's speaking opens the sentence's relayed part: the index after the verb of
 * speaking, or -1. (客户确认后，…: a verb of speaking followed by 后 times what comes next; it relays nothing.)
 */
function relayedFrom(before: string): number {
  const frame = new RegExp(
    `(^|[，,。；;：:\\s])([^，,。；;：:]{1,24}?)${SPEECH}(?:说|道)?(?![了过]?\\s*(?:后|之后|以后))(?=[，,：:\\s]|[\\u4e00-\\u9fffA-Za-z])`,
    "g",
  );
  for (const match of before.matchAll(frame)) {
    const segment = match[2] ?? "";
    // (我跟他确认了, 我让他们说明一下: the one who speaks is the object of the writer's verb.)
    if (/[跟和向给对与找问让请帮替被把]$/.test(segment.replace(/\s+/g, "").replace(/(?:他|她)们?$/, ""))) continue;
    if (isThirdParty(speakerOf(segment))) return (match.index ?? 0) + match[0].length;
  }
  return -1;
}

/**
 * The writer's own voice after a relay: 我 on its own, 我们/咱们 with the step marked done, or the
 * one who serves the user (已经帮您退回了).
 */
const ownVoiceAfter = (text: string) =>
  /我(?!们)/.test(text) || /(?:我们|咱们)[^，,。；;]{0,12}(?:已|刚)/.test(text) || /(?:帮|为|替)(?:您|你)/.test(text);

/** …，我都不能做; ——这个我不能帮你改: what the sentence named is then turned down. */
const REFUSED_LATER =
  /^(?![了过]\s*[，,。；;！!]|[了完好掉]了?)[^。；;了已]{0,60}?(?:——|[，,])\s*(?:这个|这些|这件事|这种事|这|以上(?:这些)?)?(?:我|我们)(?:都|也|实在|确实)?(?:不能|没法|没办法|无法|不会|不可以)(?:帮你|帮您|替你|替您|给你|给您|为你|为您)?(?:做|办|干|改|写|弄|提供|完成|处理|操作)/;
/** 你希望我替你…, 您想让我…: the user's request, restated before the writer answers it. */
const USER_REQUEST = /(?:你|您)(?:希望|想让|想要|要|让|请)(?:我|我们)/;
/** A label of a plan before its steps: 四周入门 Rust 的安排：, 学习计划：. */
const PLAN_LABEL = /(?:安排|计划|路线|规划|日程)\s*[:：]/;
/** The step of a plan, by its week, day or stage, right before the verb: 第1周, 第三天. */
const PLAN_STEP = /第\s*[一二三四五六七八九十\d]{1,2}\s*(?:周|天|日|步|阶段|个月|月)\s*$/;
/** A line of history under a year or a century alone (213年：, 18 世纪：, 1637 年前后：). */
const YEAR_LABEL =
  /^(?:公元前?\s*)?(?:\d{1,4}\s*(?:年代?|世纪)|[一二三四五六七八九十]{1,3}\s*世纪)(?:前后|左右|初|中叶|末)?\s*[:：]/;
/** A request for leave to a superior, in the voice of the one who asks: 王经理您好：我…想请假一天. */
const LEAVE_REQUEST =
  /^[\u4e00-\u9fff]{1,5}(?:经理|老师|总|主任|主管|领导|部长|处长|科长)(?:您好|你好)[:：，,][^。]*?(?:请假|休假|调休|请批准|望批准|请审批|特此申请)/;
/** The conclusions of a meeting's minutes, laid out after a colon: 会议纪要的结论就三条：. */
const MINUTES_CONCLUSIONS =
  /^(?:会议|会上|纪要|会议纪要|会议记录|评审会?)[^，,。；;：:]{0,6}(?:结论|决定|决议|要点)[^，,。；;：:我]{0,6}[:：]/;
/** What another party is asked to promise or state: 要求设计公司承诺…已经取得授权. */
const ASKED_TO_PROMISE = /(?:要求|让|请|需要)(?!我|咱)[^，,。；;]{1,12}?(?:承诺|保证|声明|书面确认|出具)[^，,。；;]*$/;

/**
 * Customers doing their own part (用户实际已付款, 买家都已签收): the verb's clause opens with them and
 * the verb is one only a customer does.
 */
const CUSTOMER_BEFORE =
  /(?:^|[，,；;：:\s])(?:用户|客户|买家|顾客|消费者|乘客|学员)(?:实际|实际上|都|也|均|全部|本人)?(?:已经?|都已|均已)?\s*$/;
const CUSTOMER_VERB = /^(?:付款|支付|付费|下单|签收|收货|确认收货|注册|登录|评价|续费|充值)$/;

/**
 * A verb that is also a noun, right before a noun it qualifies and a judgment of it: 通知内容没问题了,
 * 公告措辞挺好 (通知稿写好了 says a draft was written: that stays a status).
 */
const NOUN_VERB = /^(?:通知|公告|报告|记录|总结|安排|配置|回复|说明)$/;
const NOUN_HEAD_AFTER =
  /^(?:内容|正文|文案|草稿|稿子?|模板|标题|范围|对象|名单|事项|格式|措辞)[^，,。；;！!了]{0,4}?(?:没问题|没什么问题|没毛病|可以了|行了|挺好|不错|合适|妥当|通顺|清楚)/;

/** A cause laid out after a colon: 根源是：, 问题在于：, 根因是：. */
const CAUSE_LAID_OUT = /(?:根源|根因|原因|症结|问题)(?:就)?(?:在于|是)\s*[:：]/;
/** 把时区改回来就正常了: the state that follows once the user's step is taken. */
const RESULT_OF_STEP = /把[^，,。；;已了]{1,24}(?:改|调|设|换|切|装|关|开|删|重启|重装|更新)[^，,。；;已了]{0,4}就\s*$/;

export function chineseOtherVoice(plain: string, verb: string, before: string, after: string): Attribution | undefined {
  // (通知内容没问题了。要不要我发出去？: the notice's wording is how things stand, a noun phrase.)
  if (NOUN_VERB.test(verb) && NOUN_HEAD_AFTER.test(after) && !/已|刚/.test(before.split(/[，,；;：:]/).at(-1) ?? "")) {
    return { agent: "none", reason: "a noun that qualifies another, no action" };
  }
  if (CUSTOMER_VERB.test(verb) && CUSTOMER_BEFORE.test(before)) {
    return { agent: "third party", reason: "customers doing their own part" };
  }
  // (根源是：两个请求同时读取…，都看到"还剩 1 个": what a cause laid out says happened is the
  // mechanism, unless the writer steps in or marks a step done in the verb's own clause.)
  const cause = CAUSE_LAID_OUT.exec(before);
  if (
    cause &&
    !/[我咱]/.test(before) &&
    !/已|刚/.test(
      before
        .slice(cause.index)
        .split(/[，,；;：:]/)
        .at(-1) ?? "",
    )
  ) {
    return { agent: "none", reason: "inside a cause laid out" };
  }
  if (/^(?:正常|好|恢复|可以)$/.test(verb) && RESULT_OF_STEP.test(before) && !/[我咱]/.test(before)) {
    return { agent: "user", reason: "the state once the user's step is taken" };
  }
  const relayed = relayedFrom(before);
  if (relayed >= 0 && !ownVoiceAfter(before.slice(relayed))) {
    return { agent: "third party", reason: "what a named party reports or thinks, relayed" };
  }
  // (我帮你梳理一下他说了什么: the one who spoke is right before the verb, asked about, not reported.)
  if (/(?:他|她)们?\s*$/.test(before) && /^了?\s*(?:些)?(?:什么|哪些|啥)/.test(after)) {
    return { agent: "third party", reason: "what someone said, asked about" };
  }
  const ownClause = before.split(/[，,；;：:]/).at(-1) ?? "";
  if (!/已|刚/.test(ownClause) && REFUSED_LATER.test(after)) {
    return { agent: "none", reason: "what the writer names and turns down" };
  }
  const request = USER_REQUEST.exec(before);
  if (request && !/[已了刚]/.test(before.slice(request.index)) && !/^[完好掉]?[了过]/.test(after)) {
    return { agent: "user", reason: "the user's request, restated" };
  }
  if (
    PLAN_LABEL.test(before) &&
    PLAN_STEP.test(before) &&
    !/[已了刚我咱]/.test(before.slice(before.search(PLAN_STEP))) &&
    !/^[完好掉]?[了过]/.test(after)
  ) {
    return { agent: "none", reason: "a step of a plan, by its week or day" };
  }
  if (YEAR_LABEL.test(plain) && !/[我咱]/.test(plain)) {
    return { agent: "none", reason: "an entry of history under its year" };
  }
  if (LEAVE_REQUEST.test(plain)) return { agent: "user", reason: "a request written in the user's voice" };
  if (MINUTES_CONCLUSIONS.test(plain) && !/[我咱]/.test(plain)) {
    return { agent: "third party", reason: "the conclusions of a meeting's minutes" };
  }
  if (ASKED_TO_PROMISE.test(before)) return { agent: "third party", reason: "what another party is asked to promise" };
  return undefined;
}
