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
}

/** How a sentence names the doer of its verb, before anything else is weighed. */
type Subject = "first person" | "left out" | "stated";

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Where the verb stands in the sentence, and the text before and after it. */
function around(language: Language, plain: string, verb: string) {
  if (language === "zh") {
    const at = Math.max(0, plain.indexOf(verb));
    return { lower: plain, before: plain.slice(0, at), after: plain.slice(at + verb.length), at };
  }
  const lower = plain.toLowerCase().replace(/[’‘]/g, "'");
  const found = new RegExp(`(?<![\\w-])${escape(verb.toLowerCase())}(?![\\w-])`).exec(lower);
  const at = found?.index ?? 0;
  return { lower, before: lower.slice(0, at), after: lower.slice(at + (found?.[0].length ?? 0)), at };
}

const EN_FIRST_PERSON = /\b(?:i|we|i've|we've|i'd|we'd)\b/;
const EN_BY_SELF = /^\s*(?:\w+ly\s+)?by\s+(?:me|us|myself)\b/;
/** Words a status line may open with before its verb ("Done — pushed…", "Also updated…"). */
const EN_OPENERS =
  /^(?:(?:ok(?:ay)?|sure|done|all set|great|good news|update|also|just|already|finally|yes|yep|alright|right|perfect|success|successfully|status|and|then|now|both|first|next|lastly|quick update|all done|heads up|fyi|note)\b[\s,.!:;—–-]*)*$/;

/** "Committed: a change is recorded…": a term being defined, not a status. */
const EN_DEFINITION = /^\s*:\s*(?:a|an|the|it|this|when|means|used|refers|your|its|their|some|one|any)\b/;

/** English: the doer as the sentence names it — the assistant, nobody (a status line), or someone. */
function englishSubject(before: string, after: string): Subject {
  if (EN_FIRST_PERSON.test(before) || EN_BY_SELF.test(after)) return "first person";
  // The verb opens the sentence or a clause after a colon or a dash: "Pushed the fix", "Done: merged #41".
  const clause = before.split(/[;:—–]|\s-\s/).at(-1) ?? before;
  // ("Committed: a change is recorded…" defines a term; a status is read from the answer around it.)
  return EN_OPENERS.test(clause.trim()) && !EN_DEFINITION.test(after) ? "left out" : "stated";
}

const ZH_FIRST = /我们|我|咱们|本人|小助手/;
/** What may stand before the verb of a Chinese status line with no subject (已为您, 刚刚, 好嘞，都…). */
const ZH_SUBJECTLESS =
  /^(?:(?:好的|好嘞|好了|嗯|对了|另外|然后|并且|并|同时|顺便|也|都|又|还|先|已经|已|刚刚|刚才|刚|均|全部|一并|分别|重新|马上|这边|已为|已帮|已给)|(?:帮|为|给|替)(?:你|您)(?:们)?|(?:把|将).*)*$/;

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
  sentences: number,
  found: ReadonlyArray<{
    readonly language: Language;
    readonly plain: string;
    readonly verb: string;
    readonly marked: boolean;
  }>,
): AnswerContext {
  return {
    report: found.some((match) => match.marked || subjectOf(match.language, match.plain, match.verb) !== "stated"),
    sentences,
  };
}

/** A status that names no agent stands where a report would: in a report, or as a short answer. */
function unmarkedAgent(context: AnswerContext, short: boolean): Attribution {
  if (context.report) return { agent: "assistant", reason: "status in a report of its own work" };
  if (short || context.sentences <= 3) return { agent: "assistant", reason: "status line, no other agent named" };
  return { agent: "none", reason: "completed form in an explanation that reports no work of its own" };
}

/** "…rolled back automatically by Argo Rollouts", "…was issued by Let's Encrypt". */
const EN_BY_AGENT =
  /^\s*(?:(?:back|out|up|off|down|over|in)\s+)?(?:\w+ly\s+)?(?:\w+ly\s+)?by\s+(?!me\b|us\b|myself\b|hand\b|default\b|mistake\b|accident\b|email\b|mail\b|phone\b)(\S+)/;
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
  if (EN_AUTOMATIC.test(lower)) return { agent: "third party", reason: "done automatically by a system" };
  if (EN_USER_BEFORE.test(before) || EN_USER_ACTED.test(before)) return { agent: "user", reason: "the user as subject" };
  const otherActor = EN_OTHER_ACTOR.exec(plain.slice(0, at));
  if (otherActor) return { agent: "third party", reason: `someone else acted: ${otherActor[0].trim()}` };
  if (EN_CAUSE_BEFORE.test(before)) return { agent: "none", reason: "inside a clause that explains a cause" };
  if (EN_DATE.test(lower)) return { agent: "none", reason: "a dated event of the world" };
  if (marked) return { agent: "assistant", reason: "done marker on its line" };
  if (EN_DEFINITION.test(after)) return { agent: "none", reason: "a term being defined" };
  if (EN_CAUSE_AFTER.test(after)) return { agent: "none", reason: "an event explained by its cause" };
  return unmarkedAgent(context, lower.split(/\s+/).length <= 10);
}

/** 被/由 + an agent other than the assistant before the verb. */
const ZH_PASSIVE_AGENT = /(?:被|由|经由)(?!我|咱)([^\s，,。；;：:]{1,12}?)(?:自动|统一|直接|负责|手动|亲自)?$/;
const ZH_CAUSE_BEFORE = /(?:因为|由于|是因为|原因是|之所以|起因是|导致|造成|引起|所以才|如果|一旦|每当)[^；;。]*$/;
const ZH_CAUSE_AFTER = /^[^，,；;。]*?(?:造成的|导致的|引起的|引发的|所致)/;
/** A year of history, a date the event is placed at (于…年), an era: an event of the world. */
const ZH_DATE =
  /(?:于|在|是在|早在)\s*(?:公元前?)?\s*\d{3,4}\s*年(?!度)|(?:1[0-9]{3}|200[0-9]|201[0-5])\s*年(?!度)|公元前?|世纪|年代|王朝|时期|年间/;
/** 你/您 as the subject (not 你的…, 帮你, 按你说的). */
const ZH_USER = /(?:^|[^给帮为替跟和向对与让请把将按照依据用从在])(?:你|您)(?:们)?(?![^，,。；;]{0,3}的|说)[^，,。；;给]{0,8}$/;
/** A how-to: a sentence that opens with a step the user takes (打开, 点击, 进入, 选择…). */
const ZH_HOW_TO =
  /^(?:第?[一二三四五六七八九十\d]+[步、.)）]\s*)?(?:先|再|然后|接着|最后)?(?:打开|点击|点|进入|选择|长按|返回|找到|输入|勾选|切换到|前往)/;

/** Chinese: who performed the action `verb` names in `plain`. */
export function chineseAgent(plain: string, verb: string, context: AnswerContext, marked: boolean): Attribution {
  const { before, after } = around("zh", plain, verb);
  const subject = chineseSubject(before);
  if (subject === "first person") return { agent: "assistant", reason: "first person" };
  const completed = /^[了过好完掉]|^\S{0,3}[了过]/.test(after) || /已|刚/.test(before);
  if (ZH_HOW_TO.test(plain) && !completed && !marked) return { agent: "user", reason: "a step of a how-to" };
  if (subject === "left out") {
    return { agent: "assistant", reason: marked ? "done marker on its line" : "status line with the subject left out" };
  }
  const lastClause = before.split(/[，,；;：:。！!]/).at(-1) ?? before;
  const passive = ZH_PASSIVE_AGENT.exec(before.replace(/\s+/g, "").slice(-16));
  if (passive) return { agent: "third party", reason: `passive agent: ${passive[0]}` };
  if (ZH_USER.test(lastClause)) return { agent: "user", reason: "the user as subject" };
  if (/自动/.test(lastClause)) return { agent: "third party", reason: "done automatically by a system" };
  if (ZH_CAUSE_BEFORE.test(before)) return { agent: "none", reason: "inside a clause that explains a cause" };
  if (ZH_CAUSE_AFTER.test(after)) return { agent: "none", reason: "an event explained as a cause" };
  if (ZH_DATE.test(before)) return { agent: "none", reason: "a dated event of the world" };
  if (marked) return { agent: "assistant", reason: "done marker on its line" };
  return unmarkedAgent(context, plain.length <= 24);
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
