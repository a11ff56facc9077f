import { ZH_OTHER_SUBJECTS, ZH_PERSON } from "./lexicon.zh.js";
import type { Language } from "./text.js";

/**
 * Who performed the action a sentence reports. Only the assistant's own actions are claims: the
 * same completed verb is a claim in "I rolled back the deploy", the user's in "when you rolled it
 * back", a tool's in "it was rolled back by Argo Rollouts", and history in "the line was completed
 * on 10 May 1869". The language rules find a completed action; this decides whose it is, from the
 * sentence's subject, a passive's agent (by …, 被/由 …), a causal frame (because …, 是因为…造成的),
 * a date in the past, an instruction's imperative, and — for a status line that names nobody —
 * whether the answer around it reports the assistant's own work.
 */
export type Agent = "assistant" | "user" | "third party" | "none";

export interface Attribution {
  readonly agent: Agent;
  /** A few plain words that say what decided the agent, for reports. */
  readonly reason: string;
}

/** What the whole answer says about itself, read once before its sentences are attributed. */
export interface AnswerContext {
  /** The answer reports the assistant's own work: a first-person or subjectless action, a done marker or row. */
  readonly report: boolean;
  /** How many sentences can assert something: a short answer is a status, a long one may explain. */
  readonly sentences: number;
  /** The answer relays a source ("The report says…", "这份年报指出…"): what it narrates is the source's. */
  readonly relayed: boolean;
  /** Someone other than the assistant acts in the answer ("the authors trained the model…"). */
  readonly othersAct: boolean;
}

/** How a sentence names the doer of its verb, before anything else is weighed. */
type Subject = "first person" | "left out" | "stated";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Where the verb stands in the sentence, and the text before and after it. */
function around(language: Language, plain: string, verb: string) {
  if (language === "zh") {
    const at = Math.max(0, plain.indexOf(verb));
    return { lower: plain, before: plain.slice(0, at), after: plain.slice(at + verb.length), at };
  }
  const lower = plain.toLowerCase().replace(/[’‘]/g, "'");
  const found = new RegExp(`(?<![\\w-])${escapeRegExp(verb.toLowerCase())}(?![\\w-])`).exec(lower);
  const at = found?.index ?? 0;
  return { lower, before: lower.slice(0, at), after: lower.slice(at + (found?.[0].length ?? 0)), at };
}

const EN_FIRST_PERSON = /\b(?:i|we|i've|we've|i'd|we'd)\b/;
/** Words that open a clause of its own, whose subject is not the main clause's. */
const EN_CLAUSE_OPENER =
  /\b(?:which|who|that|because|since|when|whenever|after|once|until|if|although|though|while|where)\b/;
const EN_VERB_NEXT =
  /^\s+(?:\w+ly\s+)?(?:[a-z]{2,}ed|was|were|had|has|made|took|sent|built|wrote|led|won|lost|ran|became|began)\b/;
const EN_BY_SELF = /^\s*(?:\w+ly\s+)?by\s+(?:me|us|myself)\b/;
/** Words a status line may open with before its verb ("Done — pushed…", "Also updated…"). */
const EN_OPENERS =
  /^(?:(?:ok(?:ay)?|sure|done|all set|great|good news|update|also|just|already|finally|yes|yep|alright|right|perfect|success|successfully|status|and|then|now|both|first|next|lastly|quick update|all done|heads up|fyi|note)\b[\s,.!:;—–-]*)*$/;

const EN_FIRST_PERSON_ACTION =
  /\b(?:i|we)\s+(?:also\s+|just\s+|already\s+|then\s+|have\s+|'ve\s+)*(?:[a-z]{3,}ed|sent|made|wrote|set|put|ran|built|took|got|gave|left)\b/;
const EN_HEADLINE =
  /^(?!(?:the|a|an|this|that|these|those|he|she|they|it|we|you|someone|everyone|nobody|one|both|all|each)\b)[a-z][\w'-]*(?:\s+[a-z0-9][\w'./-]*){0,3}$/;
const EN_AUXILIARY = /\b(?:was|were|is|are|be|been|being|has|have|had|got|gets|did|does|do)\b/;
const EN_PERFECT =
  /\b(?:has|have|'s)\s+(?:\w+ly\s+|now\s+|all\s+|also\s+|just\s+|already\s+)*been\s+(?:\w+ly\s+)?$|\b(?:is|are)\s+(?:now|all|already)\s+$/;
const EN_YOUR = /^(?:your|you're)\b/;

const EN_PAST_ANCHOR =
  /\b(?:on (?:mon|tues|wednes|thurs|fri|satur|sun)day|yesterday|last (?:week|month|night|year|time)|(?:\d+|two|three|four|a few|several) (?:days|weeks|months|years) ago|earlier this (?:week|month|year))\b/;

/** "Committed: a change is recorded…": a term being defined, not a status. */
const EN_DEFINITION = /^\s*:\s*(?:a|an|the|it|this|when|means|used|refers|your|its|their|some|one|any)\b/;

/** English: the doer as the sentence names it — the assistant, nobody (a status line), or someone. */
function englishSubject(before: string, after: string): Subject {
  // The subject of the verb's own clause: "…Cipriani et al., which compared…" is not the "I" of "I know of".
  const own = before.split(EN_CLAUSE_OPENER).at(-1) ?? before;
  if (EN_FIRST_PERSON.test(own) || EN_BY_SELF.test(after) || /\((?:me|us|i)\)/.test(own)) return "first person";
  // "Mehmed used…": a capitalised name that a verb follows is the subject, not a past verb.
  if (EN_VERB_NEXT.test(after)) return "stated";
  // The verb opens the sentence or a clause after a colon or a dash: "Pushed the fix", "Done: merged #41".
  const clause = (before.split(/[;—–]|:(?!\d)|\s-\s/).at(-1) ?? before).replace(/^\s*\d{1,2}:\d{2}\s*/, "");
  // ("Committed: a change is recorded…" defines a term; a status is read from the answer around it.)
  return EN_OPENERS.test(clause.trim()) && !EN_DEFINITION.test(after) ? "left out" : "stated";
}

const ZH_FIRST = /我们|我|咱们|本人|小助手/;
/** What may stand before the verb of a Chinese status line with no subject (已为您, 刚刚, 好嘞，都…). */
const ZH_SUBJECTLESS =
  /^(?:(?:好的|好嘞|好了|嗯|对了|另外|然后|并且|并|同时|顺便|也|都|又|还|先|均|全部|一并|分别|重新|马上|这边|所以|于是|因此|就|去|来)\s*)*(?:(?:已经|已|刚刚|刚才|刚|已为|已帮|已给|已按|已根据).*|(?:帮|为|给|替|在|把|将|按|按照|根据|依照|用|向|跟|和|对|从|通过|去|到)(?!.*(?:他|她|他们|她们|对方|客户|同事)(?:已|在|也|又|刚|都)).*)?$/;

function chineseSubject(before: string): Subject {
  const clause = (before.split(/[，,；;：:。！!]/).at(-1) ?? before).replace(/\s+/g, "");
  if (ZH_FIRST.test(clause)) return "first person";
  return ZH_SUBJECTLESS.test(clause) ? "left out" : "stated";
}

/** Whether the sentence names the assistant, or nobody, as the one who did `verb`. */
function subjectOf(language: Language, plain: string, verb: string): Subject {
  const { before, after } = around(language, plain, verb);
  return language === "zh" ? chineseSubject(before) : englishSubject(before, after);
}

/** The answer's context: whether it reports the assistant's own work, and its length. */
export function answerContext(
  sentences: ReadonlyArray<{ readonly language: Language; readonly plain: string }>,
  written: number,
  found: ReadonlyArray<{
    readonly language: Language;
    readonly plain: string;
    readonly verb: string;
    readonly marked: boolean;
  }>,
): AnswerContext {
  return {
    report: found.some((match) => match.marked || subjectOf(match.language, match.plain, match.verb) !== "stated"),
    sentences: Math.max(sentences.length, written),
    relayed: sentences.some((sentence) => (sentence.language === "zh" ? ZH_RELAYS : EN_RELAYS).test(sentence.plain)),
    othersAct: sentences.some((sentence) => sentence.language === "en" && EN_OTHERS_ACT.test(sentence.plain)),
  };
}

/** A person or an organisation as the subject of a completed verb. */
const EN_OTHERS_ACT =
  /(?:^|[\s,;:(])(?:he|she|they|[Tt]he (?:authors?|team|researchers|maintainers?|vendor|company|customer|client|developers?|engineers?|admins?|police|government|court|board|bank))\s+(?:\w+ly\s+)?(?:[a-z]{3,}ed|ran|made|sent|wrote|took|built|gave|found|won|lost|sold|paid|told)\b/;

/** A sentence that frames the answer as relaying a source: a summary, a notice, what someone wrote. */
const EN_RELAYS =
  /^(?:according to\b|here(?:'s| is) (?:a |the )?(?:summary|recap|rundown|gist|timeline)\b|here(?:'s| is) what happened\b|what happened (?:is|was)\b|in short\b|in summary\b|to summari[sz]e\b|tl;?dr\b|(?:the|this|that|their|her|his|[A-Z][a-z]+'s) (?:report|document|doc|email|e-mail|article|paper|post|notice|announcement|memo|letter|thread|ticket|vendor|author|study|changelog|release notes|postmortem|update|message) (?:says|said|states|notes|explains|reports|argues|finds|found|mentions|claims|describes))/i;
const ZH_RELAYS =
  /^(?:这份|这篇|该|这个|这封|这条|报告|文章|公告|邮件|通知|年报|论文|纪要|新闻)[^，。]{0,12}(?:指出|提到|显示|称|说|写道|表示|认为|总结|介绍)|^(?:据|根据)[^，]{0,12}(?:说|称|报道|显示)|^[^，。]{1,10}(?:通知|公告|回复说|说)[:：]/;

/** A status that names no agent stands where a report would: in a report, or as a short answer. */
function unmarkedAgent(context: AnswerContext, short: boolean): Attribution {
  if (context.relayed) return { agent: "third party", reason: "narrated in a summary of a source" };
  if (context.report) return { agent: "assistant", reason: "status in a report of its own work" };
  if (context.othersAct) return { agent: "third party", reason: "the answer narrates what others did" };
  if (context.sentences <= 1 || (short && context.sentences <= 2))
    return { agent: "assistant", reason: "status line, no other agent named" };
  return { agent: "none", reason: "completed form in an explanation that reports no work of its own" };
}

/** "…rolled back automatically by Argo Rollouts", "…was issued by Let's Encrypt". */
const EN_BY_AGENT =
  /^[^,;:—–]{0,48}?\bby\s+(?!me\b|us\b|myself\b|hand\b|default\b|mistake\b|accident\b|e-?mail\b|mail\b|phone\b|\d|about\b|around\b|roughly\b|over\b|more\b|less\b|half\b|a\s|the end\b|end\b|eod\b|\w+day\b|tomorrow\b|tonight\b|noon\b|midnight\b|then\b|now\b|running\b|using\b|adding\b|changing\b|setting\b|removing\b|updating\b|switching\b|moving\b|replacing\b)(\S+)/;
/** A person or a system as the subject right before the verb ("The customer confirmed…", "she cancelled…"). */
const EN_ROLE_SUBJECT =
  /(?:^|[\s,;:(])(he|she|they|the (?:customer|client|user|team|vendor|maintainers?|company|bank|carrier|courier|landlord|author|authors|developers?|admins?|operator|manager|lead|support team|agent|recruiter|candidate|doctor|school|teacher|council|government|court|board|ceo|cto|cfo|sender|recipient|seller|buyer|host)|[a-z]+'s team)\s+(?:\w+ly\s+|also\s+|then\s+|already\s+|just\s+)*$/;
/** What a source says — an email, a status page, a colleague — is reported, not done by the assistant. */
const EN_REPORTED =
  /\b(?:according to|reports? that|reported that|says?(?: that)?|said(?: that)?|states? that|stated that|wrote(?: that)?|writes(?: that)?|mentions? that|mentioned that|notes? that|noted that|confirms? that|claims? that|tl;?dr|summary of|in summary|in short|the gist|per the|as per)\b/;
/** A clause that opens with a consequence ("…, so every target was marked unhealthy"). */
const EN_CONSEQUENCE = /(?:^|[,;]\s*|\s)(?:so|thus|hence|therefore|which)\s+[^,;:]*$/;
const EN_AUTOMATIC = /\b(?:automatically|auto-?\w+ed|on its own|by itself|by themselves)\b/;
/** The verb sits in a clause that explains a cause or a sequence of events ("because the cert expired"). */
const EN_CAUSE_BEFORE =
  /\b(?:because|since|caused by|due to|as a result of|which (?:is )?why|that(?:'s| is) why|this happens when|when|whenever|after|once|until|if)\b[^;:]*$/;
const EN_CAUSE_AFTER = /^[^;:]*\b(?:because|due to|as a result of)\b/;
const EN_MONTH =
  "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
/** A year of history, an era, or an event dated "on <day>": an event of the world, not a step of this task. */
const EN_DATE = new RegExp(
  [
    "\\b(?:in|on|of|since|during|around|circa|by|from)\\s+(?:the\\s+)?(?:early\\s+|late\\s+|mid-?)?(?:1[0-9]{3}|200[0-9]|201[0-5])s?\\b",
    `\\bon\\s+(?:\\w+day,?\\s+)?(?:${EN_MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${EN_MONTH})\\b`,
    "\\b\\d{1,4}\\s*(?:bc|ad|bce|ce)\\b",
    `\\b(?:in|of|since|during|by)\\s+(?:early\\s+|late\\s+|mid-?)?${EN_MONTH}\\s+(?:1[0-9]{3}|200[0-9]|201[0-9])\\b`,
    "\\bin\\s+the\\s+(?:\\d{1,2}(?:st|nd|rd|th)|[a-z]+(?:teenth|tieth))\\s+century\\b",
  ].join("|"),
);
/** The user did it: "you" as the subject before the verb. */
const EN_USER_BEFORE = /(?:^|[^\w'])you(?:'ve|'d)?\s+(?:\w+ly\s+|just\s+|already\s+|then\s+|have\s+|had\s+)*\w*$/;
const EN_USER_ACTED =
  /(?:^|[^\w'])you(?:'ve|'d)?\s+(?:\w+ly\s+|just\s+|already\s+|have\s+|had\s+)*(?:\w+ed|ran|made|sent|set|put|wrote|did|gave|built|hit|took|got|went|came|ran)\b/;
/** Someone else acted earlier in the sentence ("Git rebased your branch…, so the commits were rewritten"). */
const EN_OTHER_ACTOR =
  /(?:^|[\s(])(?:(?!I\b|If\b|When\b|Once\b|After\b|Then\b|The\b|This\b|That\b|It\b|All\b|Both\b|Your\b|Our\b|My\b|Now\b|Also\b|Just\b|Done\b|Sure\b|Yes\b|OK\b|Ok\b|Okay\b)[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*|he|she|they|the (?:team|vendor|maintainers?|company|server|system|browser|kernel|compiler|scheduler|provider|bank|carrier|courier|customer|author|developers?|admins?|operator|controller|cluster|runtime|library|framework|pipeline|cron|bot|platform))\s+(?:\w+ly\s+)?(?:had\s+|has\s+|have\s+)?(?!been\b|said\b|used\b|needed\b|wanted\b|seemed\b|looked\b|based\b|called\b|named\b)(?:\w{2,}ed|ran|made|sent|set|put|wrote|gave|built|broke|took|threw|brought|found|lost|shut|cut|hit|began|chose|drove|froze|rose|fell|won|led|sold|paid|told|held|kept)\b/;

/** English: who performed the action `verb` names in `plain`. */
export function englishAgent(plain: string, verb: string, context: AnswerContext, marked: boolean): Attribution {
  const { lower, before, after, at } = around("en", plain, verb);
  const subject = englishSubject(before, after);
  if (subject === "first person") return { agent: "assistant", reason: "first person" };
  if (subject === "left out") {
    return { agent: "assistant", reason: marked ? "done marker on its line" : "status line with the subject left out" };
  }
  const byAgent = EN_BY_AGENT.exec(after);
  if (byAgent) return { agent: "third party", reason: `passive agent: by ${byAgent[1]}` };
  // "…was announced by Steve Jobs in 2007 and released that June": the agent carries to the next verb.
  const earlierAgent = /\bby\s+(?!me\b|us\b|hand\b|default\b|\d)([a-z][\w'-]*)[^;:.]*\band\s+(?:\w+ly\s+)?$/.exec(
    before,
  );
  if (earlierAgent) return { agent: "third party", reason: `passive agent: by ${earlierAgent[1]}` };
  if (EN_AUTOMATIC.test(lower)) return { agent: "third party", reason: "done automatically by a system" };
  if (EN_USER_BEFORE.test(before) || EN_USER_ACTED.test(before))
    return { agent: "user", reason: "the user as subject" };
  const otherActor = EN_OTHER_ACTOR.exec(plain.slice(0, at));
  if (otherActor) return { agent: "third party", reason: `someone else acted: ${otherActor[0].trim()}` };
  const role = EN_ROLE_SUBJECT.exec(before);
  if (role) return { agent: "third party", reason: `someone else as subject: ${role[1]}` };
  if (EN_REPORTED.test(before)) return { agent: "third party", reason: "what a source reports" };
  if (EN_CAUSE_BEFORE.test(before)) return { agent: "none", reason: "inside a clause that explains a cause" };
  if (EN_CONSEQUENCE.test(before)) return { agent: "none", reason: "a consequence in an explanation" };
  if (EN_DATE.test(lower)) return { agent: "none", reason: "a dated event of the world" };
  if (marked) return { agent: "assistant", reason: "done marker on its line" };
  if (EN_DEFINITION.test(after)) return { agent: "none", reason: "a term being defined" };
  if (EN_CAUSE_AFTER.test(after)) return { agent: "none", reason: "an event explained by its cause" };
  const clause = before.split(/[;:—–]|\s-\s/).at(-1) ?? before;
  // "A full login was completed an hour later": an indefinite subject narrates an event.
  // (An identifier it was given — "A new epic was created (PLAT-412)" — makes it this task's.)
  const identified = /\b[A-Z]{2,}-\d+\b|#\d+/.test(plain);
  if (!identified && /^(?:a|an|some|one|another)\s[^,;:]*\b(?:was|were)\s+(?:\w+ly\s+)?$/.test(`${clause.trim()} `)) {
    return { agent: "none", reason: "an event narrated with an indefinite subject" };
  }
  // "…, and I shared the link": the sentence's own first-person action.
  if (EN_FIRST_PERSON_ACTION.test(lower)) return { agent: "assistant", reason: "first person" };
  // "Column widths fixed", "Totals row added": a headline names the task's object and no actor.
  if (EN_HEADLINE.test(clause.trim()) && !EN_AUXILIARY.test(clause)) {
    return { agent: "assistant", reason: "headline status: the object and its done verb" };
  }
  // "Your package was shipped on Monday": a simple past with a time of its own is an earlier event.
  if (/\b(?:was|were)\s+(?:\w+ly\s+)?$/.test(before) && EN_PAST_ANCHOR.test(lower)) {
    return { agent: "none", reason: "an earlier event with a time of its own" };
  }
  // "Your commits were rewritten when you ran git pull": the consequence of the user's own action.
  if (/\b(?:when|after|because|once|as|since)\s+you\b/.test(after)) {
    return { agent: "user", reason: "the consequence of the user's action" };
  }
  if (context.relayed) return { agent: "third party", reason: "narrated in a summary of a source" };
  // "The old keys have been revoked", "Your slots are booked", "…is on its way": the present state of this task's object.
  if (EN_PERFECT.test(clause) || EN_YOUR.test(clause.trim()) || /^(?:is|are|'s)\b/.test(verb.toLowerCase())) {
    return { agent: "assistant", reason: "this task's object, reported done" };
  }
  return unmarkedAgent(context, lower.split(/\s+/).length <= 16);
}

/** 被/由 + an agent and what it does, anywhere before the verb (备份任务由 cron 每天 02:00 触发，…). */
const ZH_AGENT_EARLIER =
  /(?:由|被)(?!我|咱)[^，,。；;]{1,12}?(?:触发|执行|负责|处理|完成|自动|发起|调度|接手|推送|操作)/;
/** What a source says (供应商回复说…, 李老师在群里通知：…, 公告的意思是：…) is reported, not done. */
const ZH_REPORTED =
  /(?:(?<![跟给和向对你您])(?:说|讲)(?![明下一的])|表示|反馈说|回复说|回复称|通知[:：]|称[:：，,]|提到|写道|写着|显示[:：]|公告[:：]|告知|透露|指出|意思是|听说|转述|据(?:[^，,。]{0,8})(?:说|称|消息|报道))[^。；;]*$/;
/** The register of a letter written for the user to send (贵司, 贵方): its "we" is the user's company. */
const ZH_LETTER = /(?:我们|我司|本公司)[^。]*(?:贵司|贵公司|贵方|贵单位)|此致|敬礼/;
/** After the verb: a sequence or an instruction (改完…后需要重启, 执行完可以用…, 迁过去了再说). */
const ZH_SEQUENCE_AFTER =
  /^(?:[完好过掉]|[\u4e00-\u9fff]{0,2}[了]?)[^，,。；;]{0,24}?(?:后|之后|以后|再说|再|才|可以|需要|就能|就可以|即可)/;
/** Advice or a reminder to the user before the verb (建议先…确认数据都迁过去了再说, 记得把…换掉). */
const ZH_ADVICE_BEFORE = /(?:建议|记得|提醒|麻烦|务必|最好|别忘了|应该|需要|可以)[^。；;]*$/;
/** An inference from what the user showed (说明部署在 10:01 结束，…): analysis, not a report of work. */
const ZH_INFERENCE = /^(?:这)?(?:说明|可见|看来|由此可见|可以看出|看得出)/;
/** A terse status after the task's object (数据清洗完成：, 轮换完成, 解封成功): a report's line. */
const ZH_STATUS_AFTER = /^(?:完成|完毕|成功|办妥|搞定|好|妥)|^(?:结果)?[：:]\s*$/;
/** 被/由 + an agent other than the assistant before the verb. */
const ZH_PASSIVE_AGENT = /(?:被|由|经由)(?!我|咱)([^\s，,。；;：:]{1,12}?)(?:自动|统一|直接|负责|手动|亲自)?$/;
const ZH_CAUSE_BEFORE =
  /(?:因为|由于|是因为|原因是|之所以|起因是|导致|造成|引起|所以才|如果|一旦|每当)[^；;。]*$|(?:就|于是|结果|所以|才)[^，,；;。]{0,12}$/;
const ZH_CAUSE_AFTER = /^[^，,；;。]*?(?:造成的|导致的|引起的|引发的|所致)/;
/** A year of history, a date the event is placed at (于…年), an era: an event of the world. */
const ZH_DATE =
  /(?:截至|截止到?)\s*\d{1,2}\s*月\s*\d{1,2}\s*日|(?:于|在|是在|早在)\s*(?:公元前?)?\s*\d{3,4}\s*年(?!度)|(?:1[0-9]{3}|200[0-9]|201[0-5])\s*年(?!度)|公元前?|世纪|年代|王朝|时期|年间/;
/** 你/您 as the subject (not 你的…, 帮你, 按你说的). */
const ZH_USER =
  /(?:^|[^给帮为替跟和向对与让请把将按照依据用从在])(?:你|您)(?:们)?(?![^，,。；;]{0,3}的|说)[^，,。；;给]{0,8}$/;
/** A how-to: a sentence that opens with a step the user takes (打开, 点击, 进入, 选择…). */
const ZH_HOW_TO =
  /^(?:第?[一二三四五六七八九十\d]+[步、.)）]\s*)?(?:先|再|然后|接着|最后)?(?:打开|点击|点|进入|选择|长按|返回|找到|输入|勾选|切换到|前往)/;

/** What follows a subject (a marker, an adverb, a time, 说/把): a noun after the word makes it a modifier (供应商发票). */
const ZH_FOLLOWER =
  /^\s*(?:已|均|都|在|于|也|又|刚|昨|今|上午|下午|说|把|将|给|会|还|就|先|自己|那边|这边|方面|早|一直|用|通过|对|向|从)/;
const ZH_ACTORS = [
  ...[...ZH_OTHER_SUBJECTS].filter((word) => word.length >= 2 || /[他她它]/.test(word)),
  ...["学校", "公司", "政府", "医院", "法院", "管理层", "董事会", "央行", "监管", "厂家", "商家", "对方", "物业"],
  ...["作者", "研究者", "研究人员", "研究团队", "开发者", "维护者"],
];

/** Someone other than the assistant opening the clause as its subject (客服均已回复, 她在上午…发出了). */
function otherActorFirst(clause: string): string | undefined {
  // (这篇论文的作者用…: a modifier with 的 before the actor.)
  const head = clause.replace(/^\s*(?:\d{1,2}[:：]\d{2}\s*)?/, "").replace(/^[^，,的]{1,8}的(?=\S)/, "");
  // (The actor right before the verb is its subject: 管理层关闭了…; 供应商发票核完了 is a noun phrase.)
  const word = ZH_ACTORS.find(
    (actor) => head.startsWith(actor) && (ZH_FOLLOWER.test(head.slice(actor.length)) || head.trim() === actor),
  );
  if (word) return word;
  const role = /^[\u4e00-\u9fff]{1,6}?(?=(?:已经?|均已|都已|在|于|也|又|刚|昨|今|上午|下午|说|把|将|给))/.exec(
    head,
  )?.[0];
  return role && ZH_PERSON.test(role) ? role : undefined;
}

/** Chinese: who performed the action `verb` names in `plain`. */
export function chineseAgent(plain: string, verb: string, context: AnswerContext, marked: boolean): Attribution {
  const { before, after } = around("zh", plain, verb);
  if (ZH_LETTER.test(plain)) return { agent: "user", reason: "a letter written for the user" };
  const subject = chineseSubject(before);
  if (subject === "first person") return { agent: "assistant", reason: "first person" };
  // 已开具的发票: an attributive participle describes a thing, it reports nothing.
  if (/^[\u4e00-\u9fff]?的/.test(after)) return { agent: "none", reason: "attributive participle" };
  // (过 in 过程 or 过期 is no completion.)
  const completed =
    /^[完好掉上下出到成]?(?:了|过(?![程期滤渡度于]))|^[^，,。；;]{0,8}?了(?!解)/.test(after) || /已|刚/.test(before);
  if (!marked && !completed && ZH_SEQUENCE_AFTER.test(after)) {
    return { agent: "user", reason: "a step in a sequence or an instruction" };
  }
  if (ZH_HOW_TO.test(plain) && !completed && !marked) return { agent: "user", reason: "a step of a how-to" };
  if (!marked && ZH_ADVICE_BEFORE.test(before)) return { agent: "user", reason: "advice to the user" };
  if (ZH_INFERENCE.test(plain)) return { agent: "none", reason: "an inference from what was shown" };
  // …被 master 进程杀掉并重启，…，就给客户端回: an actor named in an earlier clause carries to a subjectless one.
  const earlierClauses = before.slice(0, before.length - (before.split(/[，,；;：:]/).at(-1)?.length ?? 0));
  const carried = /(?:被|由)(?!我|咱)[^，,。；;]{1,12}/.exec(earlierClauses);
  if (carried && !marked) {
    return { agent: "third party", reason: `actor of an earlier clause: ${carried[0]}` };
  }
  if (subject === "left out" && !completed && !marked && /要|需要|应该|可以|必须|记得|别|不要/.test(plain)) {
    return { agent: "user", reason: "an instruction with the subject left out" };
  }
  if (subject === "left out" && !marked && !ZH_FIRST.test(earlierClauses)) {
    // 秦始皇于公元前221年统一六国，建立了秦朝: the subject and time of the first clause carry.
    const first = earlierClauses.split(/[，,；;：:]/)[0] ?? "";
    const actor = first === "" ? undefined : otherActorFirst(first);
    if (actor) return { agent: "third party", reason: `someone else as subject of the sentence: ${actor}` };
    if (ZH_DATE.test(earlierClauses)) return { agent: "none", reason: "a dated event of the world" };
  }
  if (subject === "left out") {
    return { agent: "assistant", reason: marked ? "done marker on its line" : "status line with the subject left out" };
  }
  const lastClause = before.split(/[，,；;：:。！!]/).at(-1) ?? before;
  const passive = ZH_PASSIVE_AGENT.exec(before.replace(/\s+/g, "").slice(-16));
  if (passive) return { agent: "third party", reason: `passive agent: ${passive[0]}` };
  const earlier = ZH_AGENT_EARLIER.exec(before);
  if (earlier) return { agent: "third party", reason: `passive agent: ${earlier[0]}` };
  if (ZH_REPORTED.test(before)) return { agent: "third party", reason: "what a source reports" };
  if (ZH_USER.test(lastClause)) return { agent: "user", reason: "the user as subject" };
  const actor = otherActorFirst(lastClause);
  if (actor) return { agent: "third party", reason: `someone else as subject: ${actor}` };
  if (/自动/.test(lastClause)) return { agent: "third party", reason: "done automatically by a system" };
  if (ZH_CAUSE_BEFORE.test(before)) return { agent: "none", reason: "inside a clause that explains a cause" };
  if (ZH_CAUSE_AFTER.test(after)) return { agent: "none", reason: "an event explained as a cause" };
  if (ZH_DATE.test(before)) return { agent: "none", reason: "a dated event of the world" };
  if (marked) return { agent: "assistant", reason: "done marker on its line" };
  if (context.relayed) return { agent: "third party", reason: "narrated in a summary of a source" };
  // 补偿券已经发到您的账户了, 会议邀请已发送给 6 位参会人: the task's object, marked done.
  if (/(?:已经?|均已|都已|全部已)\s*\S{0,4}$/.test(lastClause) || /(?:你|您)的/.test(lastClause)) {
    return { agent: "assistant", reason: "this task's object, marked done" };
  }
  if (/(?:我|我们)(?:已经?|也|还|刚|又|都)?[^，,。；;你您他她]{0,12}[了过]/.test(plain)) {
    return { agent: "assistant", reason: "first person" };
  }
  // 数据清洗完成：, 标书格式按公司模板调整好了：: the heading of a list of what was done.
  if (/[：:]\s*$/.test(plain) && /^(?:完成|完毕|成功|好|了|结果)|^\S{0,2}了/.test(after)) {
    return { agent: "assistant", reason: "heading of a list of what was done" };
  }
  const terse =
    ZH_STATUS_AFTER.test(after) ||
    (/(?:完成|完毕|成功|办妥|搞定)$/.test(verb) && /^\s*(?:[，,。；;：:!！]|$)/.test(after));
  if (terse && (context.report || context.sentences <= 3)) {
    return { agent: "assistant", reason: "terse status after the task's object" };
  }
  return unmarkedAgent(context, plain.length <= 40);
}

/** Who performed the action of a sentence the language rule took as completed. */
export function attributeAgent(
  language: Language,
  plain: string,
  verb: string,
  context: AnswerContext,
  marked: boolean,
): Attribution {
  return language === "zh" ? chineseAgent(plain, verb, context, marked) : englishAgent(plain, verb, context, marked);
}
