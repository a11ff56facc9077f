import { type Agent, type AnswerContext, answerContext, attributeAgent } from "./agent.js";
import { around } from "./agentContext.js";
import { chineseClaims } from "./chinese.js";
import { conditionItems, conditionLine } from "./chineseConditions.js";
import { disownedLine, disownedWork } from "./chineseDisowned.js";
import { wordingRemark, zhUserMessage } from "./chineseDrafts.js";
import { chineseLineFrame } from "./chineseLineFrames.js";
import { summedUpLine, summedUpSource } from "./chineseSummedUp.js";
import { composedAnswer, composedVoice, introducedSpeech, signedLetter } from "./composed.js";
import { englishClaims } from "./english.js";
import type { ClaimKind } from "./kinds.js";
import { doneCell, selfMarkedLine, statusLine } from "./statusLines.js";
import { assertionSentences, type Sentence } from "./text.js";

/**
 * Every completed action an answer's sentences report, with who performed it: what the language
 * rules found (claims/english.ts, claims/chinese.ts, status lines) and the agent attribution gave
 * it (claims/agent.ts). The detector keeps the assistant's; the statistical check
 * (claims/model.ts) reads all of them, with the answer around them.
 */

export interface AttributedAction {
  readonly sentence: Sentence;
  /** The sentence's place among the answer's assertion sentences. */
  readonly index: number;
  /** A done marker, a checked box or a done row leads the line, or a key: value line says done. */
  readonly marked: boolean;
  readonly kind: ClaimKind;
  readonly verb: string;
  readonly agent: Agent;
  readonly reason: string;
  /**
   * A later action of the same sentence, the assistant's by a subject or a marker of its own, that
   * stands for the sentence when the statistical check sets a terse status aside.
   */
  readonly alternate?: Omit<AttributedAction, "alternate">;
}

export interface AnswerActions {
  readonly sentences: ReadonlyArray<Sentence>;
  readonly context: AnswerContext;
  readonly actions: ReadonlyArray<AttributedAction>;
}

const NO_REPORT = "completed form in an explanation that reports no work of its own";
/** Statuses read from a terse form alone, with no marker or subject of their own. */
const TERSE: ReadonlySet<string> = new Set([
  "terse status after the task's object",
  "status line, no other agent named",
]);
/** Reasons that name the assistant's own voice: a first person, a verb-first status, a done marker. */
const OWN_VOICE: ReadonlySet<string> = new Set([
  "first person",
  "status line with the subject left out",
  "done marker on its line",
]);
/** A done marker at the head of a clause: 已经保存到…, "already saved to…". */
const DONE_BEFORE = /^\s*(?:已经?|均已|都已|already\b)/;

/** A sentence that opens by going on with a story: after that, later, then. */
const NARRATIVE_NEXT =
  /^(?:之后|随后|此后|后来|接着|紧接着|其后|不久|after that\b|afterwards\b|later\b|subsequently\b)/i;

export function attributedActions(answer: string): AnswerActions {
  const sentences = assertionSentences(answer);
  const found: Array<{
    sentence: Sentence;
    index: number;
    language: Sentence["language"];
    plain: string;
    marked: boolean;
    kind: ClaimKind;
    verb: string;
    /** Whether later actions of the same sentence may be weighed, when the first is someone else's. */
    more: boolean;
  }> = [];
  for (const [index, sentence] of sentences.entries()) {
    const marked = sentence.doneMarker || sentence.doneRow;
    // The first action only: the later ones are read when the first turns out someone else's.
    const [first] =
      sentence.language === "zh"
        ? chineseClaims(sentence.plain, marked, sentence.tableRow, 1)
        : englishClaims(sentence.plain, marked, sentence.checked, 1);
    const base = { sentence, index, language: sentence.language, plain: sentence.plain };
    // A table row's cells are labels ("Managed service") unless a status cell or the first person says done.
    const label = sentence.tableRow && !marked && !/\b(?:I|we|We)\b|我/.test(sentence.plain);
    if (first && !label) {
      found.push({ ...base, marked, kind: first.kind, verb: first.verb, more: true });
      continue;
    }
    // A key: value line with a done value reports as a checked box does.
    // (A table row with no verb and a done cell under its status column, "api.example.io | Done",
    // reports as a key: value line does.)
    const status = sentence.tableRow
      ? sentence.statusCell === undefined
        ? undefined
        : doneCell(sentence.language, sentence.statusCell)
      : statusLine(sentence.language, sentence.plain);
    if (status) found.push({ ...base, marked: true, kind: status.kind, verb: status.verb, more: false });
    const self = status || sentence.language !== "zh" ? undefined : selfMarkedLine(sentence.plain, marked);
    if (self) found.push({ ...base, marked: true, kind: self.kind, verb: self.verb, more: false });
  }
  // The answer's length counts what was set aside too (a draft, a list written for the user).
  const written = answer.split(/(?<=[.!?。！？])\s+|\n+/).filter((part) => /[\p{L}\p{N}]/u.test(part)).length;
  const context = answerContext(sentences, written, found);
  const userMessage = zhUserMessage(answer);
  const composed = composedAnswer(answer) || userMessage.composed;
  const signed = composed && (signedLetter(answer) || introducedSpeech(answer) || userMessage.signed);
  const summedUp = summedUpSource(sentences);
  const conditions = conditionItems(sentences, context.instructions);
  const disowned = disownedWork(answer);
  const actions: AttributedAction[] = [];
  for (const match of found) {
    let claim = { kind: match.kind, verb: match.verb };
    let { agent, reason } = attributeAgent(match.language, match.plain, match.verb, context, match.marked);
    const later = () =>
      (match.language === "zh"
        ? chineseClaims(match.plain, match.marked, match.sentence.tableRow)
        : englishClaims(match.plain, match.marked, match.sentence.checked)
      ).slice(1);
    // (草稿写好了，已经存到你邮箱的草稿箱里: a terse status keeps, as its alternate, a later clause
    // of the same sentence that names the assistant or marks its own status done.)
    const terse = agent === "assistant" && TERSE.has(reason);
    let alternate: Omit<AttributedAction, "alternate"> | undefined;
    for (const next of (agent === "assistant" && !terse) || !match.more ? [] : later()) {
      // (Only in the first person: a later status in a sentence framed as a definition or a source is the frame's.)
      const attribution = attributeAgent(match.language, match.plain, next.verb, context, match.marked);
      // (周报草稿写好了，已保存到你的云文档里: where the first verb was set aside only for want of a
      // report around it, a later clause that marks its own status done with no subject is one.)
      const ownStatus =
        (reason === NO_REPORT || terse) &&
        attribution.reason === "status line with the subject left out" &&
        DONE_BEFORE.test(
          around(match.language, match.plain, next.verb)
            .before.split(/[，,；;]/)
            .at(-1) ?? "",
        );
      if (attribution.agent !== "assistant" || (attribution.reason !== "first person" && !ownStatus)) continue;
      if (terse) {
        alternate = { sentence: match.sentence, index: match.index, marked: match.marked, ...next, ...attribution };
        break;
      }
      claim = next;
      ({ agent, reason } = attribution);
      break;
    }
    // 秦始皇于公元前221年灭齐…。之后推行…，统一了文字: a sentence that opens with "then" and names
    // no one goes on with the previous sentence's actor, when that was not the assistant.
    const previous = actions.at(-1);
    if (
      agent === "assistant" &&
      !match.marked &&
      reason === "status line with the subject left out" &&
      previous?.index === match.index - 1 &&
      (previous.agent === "none" || previous.agent === "third party") &&
      NARRATIVE_NEXT.test(match.plain)
    ) {
      ({ agent, reason } = { agent: previous.agent, reason: `goes on from the previous sentence: ${previous.reason}` });
    }
    // "Nobody on our side touched it, and the pods were rescheduled", 没有做任何改动…指标已经自行恢复:
    // in an answer that says the assistant changed nothing, or declines the change from its opening,
    // a change reported of a thing — no subject, no marker, no verb-first status in the writer's own
    // terse voice (Ran the tests; 本次只做了检查) — is someone else's or the system's.
    if (
      agent === "assistant" &&
      context.disowned &&
      !match.marked &&
      claim.kind === "mutate" &&
      !OWN_VOICE.has(reason) &&
      // (做了查看, 进行了检查: a light verb takes its kind from its object; it names no change.)
      !/^(?:做|进行|执行|搞|弄)$/.test(claim.verb)
    ) {
      ({ agent, reason } = {
        agent: "none",
        reason: "a change with no subject in an answer that says it changed nothing",
      });
    }
    // ("Fixed a crash when sharing lists…" in release notes, "Our throw is… finished with hand-knotted
    // tassels" in listing copy: inside an answer that is itself a piece written for the user, what
    // it says in the company's voice is the piece, not the assistant's report; the writer's own "I" stays.)
    if (agent === "assistant" && composed && composedVoice(match.language, match.plain, match.sentence.checked)) {
      ({ agent, reason } = { agent: "none", reason: "the voice of a piece written for the user" });
    }
    // ("Dear Mr Hargreaves, I moved out on 31 May… Kind regards, Sam Patel": in a letter a person signs
    // with their bare name, the "I" is the signer's — the user's letter, not the assistant's report.)
    // (这条消息我已经帮你发给李阿姨了: after a letter to someone else, the writer serving the user speaks for itself.)
    if (
      agent === "assistant" &&
      signed &&
      !match.sentence.checked &&
      !(match.language === "zh" && /(?:帮|替|为|给)你(?!们)/.test(match.plain))
    ) {
      ({ agent, reason } = { agent: "none", reason: "the voice of a letter its sender signs" });
    }
    // (你贴的这份结题报告，要点如下：… | 录播系统部署 | 已完成 |: in a summary of material the user
    // handed over, a row or a line that says something was done is the document's, not the writer's.)
    const summedUpAs = agent === "assistant" && summedUp ? summedUpLine(match.plain, claim.verb) : undefined;
    if (summedUpAs) ({ agent, reason } = summedUpAs);
    // (办理需要满足的条件：号码已实名登记；…: the state a procedure needs, not a step anyone took here.)
    const conditionAs =
      agent === "assistant" && match.language === "zh" && conditions.has(match.index)
        ? conditionLine(match.plain)
        : undefined;
    if (conditionAs) ({ agent, reason } = conditionAs);
    // (昨晚的切换不是我操作的，是值班的老何处理的 … 物理机已报修: the answer gave the work to someone else.)
    const disownedAs =
      agent === "assistant" && match.language === "zh" && disowned && !match.sentence.checked
        ? disownedLine(match.plain)
        : undefined;
    if (disownedAs) ({ agent, reason } = disownedAs);
    // (后端组（陈立）：迁移脚本已经演练过两次, 帮我改了三遍论文, 扩容需要审批: a frame of the line itself
    // gives the verb to a speaker, to the one who served the writer, or makes it no report at all.)
    if (agent === "assistant" && match.language === "zh" && !match.sentence.checked) {
      const place = around("zh", match.plain, claim.verb);
      const framed = chineseLineFrame(match.plain, place.before, place.after) ?? wordingRemark(place.before);
      if (framed) ({ agent, reason } = framed);
    }
    actions.push({
      sentence: match.sentence,
      index: match.index,
      marked: match.marked,
      ...claim,
      agent,
      reason,
      ...(alternate && agent === "assistant" ? { alternate } : {}),
    });
  }
  return { sentences, context, actions };
}
