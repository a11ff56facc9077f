import { chineseAgent } from "./agentChinese.js";
import { chineseSubject, ZH_DATE } from "./agentChineseCues.js";
import { type AnswerContext, type Attribution, around, type Subject } from "./agentContext.js";
import { EN_DATE, englishAgent, englishSubject } from "./agentEnglish.js";
import { zhOthersOpening } from "./chineseOthersOpening.js";
import { enNotStatus, zhDateLabelled, zhFramed, zhNotStatus, zhPromised } from "./statusShape.js";
import type { Language } from "./text.js";
import { wordRole } from "./wordRoles.js";

/**
 * Who performed the action a sentence reports. Only the assistant's own actions are claims: the
 * same completed verb is a claim in "I rolled back the deploy", the user's in "when you rolled it
 * back", a tool's in "it was rolled back by Argo Rollouts", and history in "the line was completed
 * on 10 May 1869". The language rules find a completed action; this decides whose it is, from the
 * sentence's subject, a passive's agent (by …, 被/由 …), a causal frame (because …, 是因为…造成的),
 * a date in the past, an instruction's imperative, and — for a status line that names nobody —
 * whether the answer around it reports the assistant's own work.
 */
export type { Agent, AnswerContext, Attribution } from "./agentContext.js";

/** Whether the sentence names the assistant, or nobody, as the one who did `verb`. */
function subjectOf(language: Language, plain: string, verb: string): Subject {
  const { before, after } = around(language, plain, verb);
  return language === "zh" ? chineseSubject(before) : englishSubject(before, after);
}

/**
 * Whether a found action speaks for the assistant's own work: a marker, a first person that does
 * not only promise, or a subjectless line that has the shape of a status (statusShape.ts) — a
 * definition or a cause with its subject left out makes no answer a report.
 */
function ownWork(match: {
  readonly language: Language;
  readonly plain: string;
  readonly verb: string;
  readonly marked: boolean;
}) {
  if (match.marked) return true;
  const subject = subjectOf(match.language, match.plain, match.verb);
  if (subject === "stated") return false;
  const { before, after } = around(match.language, match.plain, match.verb);
  if (match.language === "zh") {
    if (zhPromised(before, after)) return false;
    return (
      subject === "first person" || !(zhNotStatus(match.plain, match.verb, before, after) ?? zhFramed(before, after))
    );
  }
  return subject === "first person" || !enNotStatus(match.plain, before, after, match.verb);
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
  let history: boolean | undefined;
  const zhPlains = sentences.filter((sentence) => sentence.language === "zh").map((sentence) => sentence.plain);
  const handedOver = sentences[0]?.language === "zh" && zhOthersOpening(zhPlains);
  return {
    // (An answer that opens by saying it is done — 好了，…, "Done —" — reports its own work too.)
    report: DONE_OPENING.test(sentences[0]?.plain ?? "") || found.some(ownWork),
    sentences: Math.max(sentences.length, written),
    // (昨晚的扩容是运维组的老周做的，情况如下：: an opening that hands the account to someone else relays it.)
    relayed:
      handedOver ||
      sentences.some(
        (sentence) =>
          (sentence.language === "zh" ? ZH_RELAYS : EN_RELAYS).test(sentence.plain) ||
          RELAY_LEAD.test(sentence.plain.slice(-120)) ||
          (sentence.language === "en" && EN_RECAP.test(sentence.plain.slice(0, 120))),
      ),
    recap: sentences
      .slice(0, 2)
      .some((sentence) => sentence.language === "en" && EN_RECAP.test(sentence.plain.slice(0, 120))),
    pasted: sentences.some((sentence) => sentence.language === "zh" && ZH_PASTED_SOURCE.test(sentence.plain)),
    othersAct: sentences.some((sentence) => sentence.language === "en" && EN_OTHERS_ACT.test(sentence.plain)),
    instructions: sentences.some((sentence) => (sentence.language === "zh" ? ZH_STEP : EN_STEP).test(sentence.plain)),
    // (Read only when a rule asks: most answers never need it.)
    get history() {
      history ??= datedSentences(sentences) >= 2;
      return history;
    },
    timeline: sentences.filter((sentence) => sentence.language === "zh" && zhDateLabelled(sentence.plain)).length >= 2,
    names: namesOf(sentences),
    disowned: sentences.some(
      (sentence, index) =>
        (sentence.language === "zh" ? ZH_DISOWNED : EN_DISOWNED).test(sentence.plain) ||
        (index <= 1 && (sentence.language === "zh" ? ZH_DECLINED : EN_DECLINED).test(sentence.plain)),
    ),
    declined: sentences.some(
      (sentence, index) => index <= 1 && sentence.language === "en" && EN_DECLINES.test(sentence.plain),
    ),
  };
}

/** An answer's opening word that says the work is done (not "Done on your side!"). */
const DONE_OPENING =
  /^(?:好了|搞定了?|弄好了|办好了|完成了|都好了)(?=[，,。！!\s])|^(?:done|all done|all set|all sorted)\b(?! on your)/i;

/**
 * The assistant (or "our side") says it changed nothing at all: a denial of any change, not of one
 * thing ("I didn't touch prod" leaves staging open, so it does not count).
 */
const EN_DISOWNED =
  /\b(?:nobody|no one|none of us)(?: (?:on|from) (?:our|my) (?:side|end|team))? (?:touched|changed|modified|did anything)\b|\b(?:i|we) (?:didn['’]t|did not|haven['’]t|have not|never) (?:touch|change|modify|do) anything(?:\s+(?:myself|at all|else))?\s*(?:[.;,:—–-]|$)|\b(?:i|we) (?:didn['’]t|did not|haven['’]t|have not) (?:make|made) any changes?\b|\bnothing (?:was|has been|got) (?:changed|touched|modified) on (?:our|my) (?:side|end)\b/i;
const ZH_DISOWNED =
  /(?:没有?|未|并未|不曾)(?:做|进行|执行)?(?:过)?任何(?:改动|操作|变更|修改|更改|调整|处理)|(?:我|我们)(?:这边)?(?:没有|没|并未|未|不曾)参与|没有人(?:动|碰|改)过?/;
/** An opening that declines the change asked for ("I can['’]t help you get around…", 也不会帮你改). */
const EN_DECLINED =
  /^(?:(?:sorry|unfortunately)[,.!]?\s*)?(?:i|we) (?:can['’]t|cannot|won['’]t|will not|am not able to|['’]m not able to|am not going to|['’]m not going to) (?:help (?:you )?(?:with|get|to|bypass|disable|delete|turn)|make (?:that|this|the) change|change|modify|delete|disable|turn off|bypass|remove|edit)\b/i;
/**
 * An opening that declines anything asked, not only a change ("I can't tell you for sure…", "I
 * can't give instructions for…", "I haven't run the command, and I won't…").
 */
const EN_DECLINES =
  /^(?:(?:sorry|unfortunately)[,.!]?\s*)?(?:i|we)(?:['’]m| am| are|['’]re)? (?:can['’]t|cannot|won['’]t|will not|not able to|unable to|not going to)\b|\band (?:i|we) (?:won['’]t|will not)\b/i;
const ZH_DECLINED =
  /(?:不会|不能|没法|无法|不便)(?:帮你|帮您|替你|替您|为你|为您)(?:改|关|删|做|操作|执行|处理|修改|关闭|删除|绕过)/;

/** How many sentences (two at most: that is all the context asks) date an event of the world. */
function datedSentences(sentences: ReadonlyArray<{ readonly language: Language; readonly plain: string }>): number {
  let dated = 0;
  for (const sentence of sentences) {
    // (Every date the patterns know holds a digit or names a century, an era or a dynasty.)
    if (!/\d|centur|公元|世纪|年代|王朝|时期|年间/i.test(sentence.plain)) continue;
    if (!(sentence.language === "zh" ? ZH_DATE : EN_DATE).test(sentence.plain.slice(0, 2000).toLowerCase())) continue;
    if (++dated >= 2) break;
  }
  return dated;
}

/** A sentence that opens with a step for the user to take. */
const EN_STEP =
  /^(?:step \d+[:.]?\s*)?(?:click|tap|go to|open|select|press|choose|enter|type|navigate to|paste|copy|scroll|log in|sign in|make sure|find|turn on|turn off|toggle|drag)\b/i;
const ZH_STEP =
  /^(?:第?[一二三四五六七八九十\d]+[步、.)）]\s*[:：]?\s*)?(?:先|再|然后|接着|最后)?(?:打开|点击|点|进入|选择|长按|返回|找到|输入|勾选|切换到|前往)/;

/** A capitalised word after a lower-case word or a comma is a name ("…, Marta confirmed", "Agent Marta"). */
const MID_SENTENCE_NAME = /(?<=[\p{Ll}\d,;)]\s+)[A-Z][a-z]+(?:[A-Z][a-z]+)*\b/gu;

function namesOf(sentences: ReadonlyArray<{ readonly language: Language; readonly plain: string }>): Set<string> {
  const names = new Set<string>();
  for (const sentence of sentences) {
    if (sentence.language !== "en") continue;
    for (const match of sentence.plain.slice(0, 2000).matchAll(MID_SENTENCE_NAME)) names.add(match[0]);
  }
  return names;
}

/** A person or an organisation as the subject of a completed verb. */
const EN_OTHERS_ACT =
  /(?:^|[\s,;:(])(?:he|she|they|[Tt]he (?:authors?|team|researchers|maintainers?|vendor|company|customer|client|developers?|engineers?|admins?|police|government|court|board|bank))\s+(?:\w+ly\s+)?(?:[a-z]{3,}ed|ran|made|sent|wrote|took|built|gave|found|won|lost|sold|paid|told)\b/;

/**
 * A sentence that frames the answer as relaying a source: a summary, a notice, what someone wrote.
 * (A plural source relays as a singular one does: "The minutes say…", "The slides argue…".)
 */
// ("What the escrow analysis you pasted shows": a title that says what a source shows relays it.)
// ("Going by the adjuster's email you forwarded, here's where the claim stands:": an opening that
// reads someone's message and lays out where things stand relays it.)
// ("From your notes: budget approved at €48k", "Update from the provider's status page on the
// outage:": an opening that names the people's writing it draws on relays what it lays out.)
const EN_RELAYS =
  /^(?:(?:(?:an? |the |quick |latest |short )?(?:update|summary|recap|gist|rundown|highlights|excerpt|news) )?from (?:the|your|their|his|her|[a-z]+'s) (?:[\w'-]+ ){0,3}?(?:notes|email|e-mail|emails|thread|transcript|minutes|message|messages|letter|memo|chat|status page|announcement|post|changelog|release notes)\b[^.:;]{0,60}:|what (?:the|this|that|your|their|his|her) (?:[\w'-]+ ){0,4}?(?:you (?:pasted|shared|sent|attached|forwarded|uploaded) )?(?:shows|says|tells us|means|covers)\b|(?:going by|based on|judging (?:by|from)) (?:the|your|this|that|their|his|her|[a-z]+'s) (?:[\w'-]+ ){0,2}?(?:email|e-mail|letter|message|notice|reply|response|statement|memo|thread|post|notes|minutes|transcript|decision|update)\b[^.:;]{0,60}?,\s*here(?:'s| is) (?:where|what|how)\b|according to\b|here(?:'s| is) (?:a |the )?(?:summary|recap|rundown|gist|timeline|history|story|background)\b(?! of (?:what|the changes|my|our) )|here(?:'s| is) how (?:the|this|that|it|their|his|her) [^.:]{0,60}?\b(?:is|was|are|were|gets|got) (?:usually |commonly |often |typically |generally |traditionally |normally )?(?:told|described|recounted|presented|explained|summari[sz]ed)\b|here(?:'s| is) what (?:happened\b|(?!i\b|we\b)[^.:]{1,80}\b(?:said|says|wrote|found|decided|reported|agreed|concluded|did)\b)|what happened (?:is|was)\b|in short\b|in summary\b|to summari[sz]e\b|tl;?dr\b|(?:the|this|that|their|her|his|your|[a-z]+'s)\s+(?:[\w.'-]+\s+){0,2}?(?:report|document|doc|email|e-mail|article|paper|post|notice|announcement|memo|letter|thread|ticket|vendor|author|study|changelog|release notes|postmortem|update|message|audit|review|investigation|survey|analysis|inspection|assessment|minutes|transcript|chat|call|abstract|summary|statement|press release|notes|slides|filing|ruling|judgment|chapter|book|essay|episode|podcast|lecture|interview|speech|thesis) (?:boils? down to|comes? down to|amounts? to|say|says|said|state|states|stated|note|notes|noted|explain|explains|explained|report|reports|reported|argue|argues|argued|find|finds|found|show|shows|showed|mention|mentions|mentioned|claim|claims|claimed|describe|describes|described|conclude|concludes|concluded|confirm|confirms|confirmed|record|records|recorded|suggest|suggests|suggested))/i;
// (根据你贴的站会记录，各组进展如下：: so does one that lays out each party's progress from it, and
// 根据你发来的会议转写，厂商对宕机的解释如下：, one that lays out someone's account from it.)
// (您贴的这份公积金新政文件，变化主要有四点：: an opening that names what the user pasted and then
// sums it up relays that text, as 这份文件指出 does.)
const ZH_RELAYS =
  /^(?:根据|关于)?(?:你|您)(?:刚才|刚刚|之前|上面)?(?:贴|粘贴|转述|转过来|发过来|发来)的[^，。]{0,24}[，,][^，。]{0,10}(?:要点|主要|变化|概括|几点|内容|说法|核心|大意|进展如下|情况如下)|^(?:根据|按照)(?:你|您)(?:刚才|刚刚|之前|上面)?(?:贴|粘贴|转述|转过来|发过来|发来)的[^，。]{0,24}[，,][^，。我咱]{0,24}(?:说法|解释|意见|结论|口径|答复|回复)如下[:：]\s*$|^(?:这份|这篇|该|这个|这封|这条|报告|文章|公告|邮件|通知|年报|论文|纪要|新闻)[^，。]{0,12}(?:指出|提到|显示|称|说|写道|表示|认为|总结|介绍|要点|摘要|主要内容)|^(?:据|根据)[^，]{0,12}(?:说|称|报道|显示)|^[^，。]{1,10}(?:通知|公告|回复说|说)[:：]|^(?:会议|会上|群聊|群里|讨论|通话|电话|评审|访谈)[^，。]{0,6}(?:总结|纪要|记录|结论|要点)[:：]|^(?:根据|按照|据)(?![^：:。]*(?:我|咱))[^：:。]{1,40}?(?:记录|文档|文件|报告|公告|通告|通报|纪要|页面|状态页|日志|邮件|群聊|聊天记录|复盘)[^：:。已]{0,20}[:：]\s*$/;

/**
 * A title that recaps a meeting others held ("## HOA meeting (Oct 8): summary", "Standup recap (QA
 * squad, Tuesday):"): the answer relays it, and its lines with no subject are the attendees' doings.
 */
const EN_RECAP =
  /^[^.!?]{0,60}\b(?:meeting|stand-?up|call|sync|retro|retrospective|hearing|town hall|all-hands|huddle|webinar|workshop|panel)\b[^.!?]{0,30}?\b(?:summary|recap|minutes|notes|takeaways|readout)(?:\s*\([^()]{1,40}\))?\s*:?\s*$/i;

/**
 * What the user pasted or retold in the conversation (你贴的录音转写, 你刚才转述的通话内容) as the
 * answer's material: arranging it (归类, 标成) is writing this reply.
 */
const ZH_PASTED_SOURCE = /(?:你|您)(?:刚才|刚刚|之前|上面)?(?:贴|粘贴|转述|转过来|发过来|发来)的/;

/**
 * A line that hands over to what someone else said, with no first person (维护者是这么回复的：,
 * "The maintainers replied:"): what follows is theirs.
 */
const RELAY_LEAD =
  /^(?![\s\S]*(?:我|咱|\b(?:I|we|We|my|our|me)\b))[\s\S]*(?:(?:这么|这样|如下)?(?:回复|答复|表示|解释|写道|说)(?:的|道)?|\b(?:replied|responded|answered|wrote|said|explained)(?: (?:as follows|this|that))?)\s*[:：]\s*$/;

/** A numbered alternative's label before a colon: 方法三：, 情况二：, "Option 2:", "Case B:". */
const CASE_LABEL =
  /^\s*(?:(?:方法|办法|方案|情况|情形|场景|选项|途径)\s*[一二三四五六七八九十\dA-Za-z]{1,2}|(?:option|case|scenario|alternative)\s+(?:[1-9]|[a-d]|one|two|three|four)\b)\s*[:：]/i;

/** Who performed the action of a sentence the language rule took as completed. */
export function attributeAgent(
  language: Language,
  plain: string,
  verb: string,
  context: AnswerContext,
  marked: boolean,
): Attribution {
  // (方法三：手机号已停用, "Option 2: account already closed": a label that numbers one of several
  // alternatives names a case the reader may be in; what it says is done is the case's condition.)
  if (CASE_LABEL.test(plain)) return { agent: "none", reason: "a case named by a numbered alternative" };
  // (执行率 48%, "Under-kneaded dough tears easily", 做完我来讲: no verb of the sentence, or none completed.)
  const role = marked ? undefined : wordRole(language, plain, verb);
  if (role) return role;
  return language === "zh" ? chineseAgent(plain, verb, context, marked) : englishAgent(plain, verb, context, marked);
}
