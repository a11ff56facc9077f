import type { Attribution } from "./agentContext.js";
import { around } from "./agentContext.js";
import type { Language } from "./text.js";

/**
 * Where a completed-looking verb is not a verb of the sentence at all, or not a completion: read
 * before anyone is named as its doer, and only on lines no done marker leads.
 *
 * - English: a participle that describes a noun ("Under-kneaded dough tears easily", "spaced
 *   practice beats massed practice", "Design: randomised, double-blind") is an adjective; a
 *   sentence that stops at "(e.g." names kinds of things.
 * - Chinese: a verb inside a noun (执行率, 发送量); a bare 好 or 完 with no 了 — what is asked
 *   (把…都保存好；) or a time to come (做完我来讲); 已 inside a condition (如已触发); and what
 *   follows a clause that relays someone's report (仓库那边反馈，…已经发出; 他们说…已经禁用了).
 */
export function wordRole(language: Language, plain: string, verb: string): Attribution | undefined {
  return language === "zh" ? chineseRole(plain, verb) : englishRole(plain, verb);
}

/** Words that name a noun's kind, never the verb's object: a determiner makes the noun an object. */
const DETERMINER =
  /^(?:a|an|the|this|that|these|those|his|her|their|its|our|my|your|one|two|three|all|both|each|every|some|several|any|no|to|in|on|at|for|from|with|by|of|and|or|as|it|them|him|me|us)$/;
/** A verb in the present (or a modal) after the noun: "dough tears", "practice beats", "data can". */
const PRESENT_AFTER =
  /^(?:is|are|has|have|can|cannot|can't|will|won't|must|should|may|might|does|doesn't|don't|tends?|needs?|[a-z]{2,}(?<![su]s)s)$/;
/** What may follow such a verb in a sentence about how things are: an adverb, a comparison, an object. */
const PREDICATE_NEXT =
  /^(?:[a-z]+ly|a|an|the|more|less|better|worse|faster|slower|longer|well|much|most|up|down|out|off|away|apart|easily|[a-z]+ed|[a-z]+ing|no|not|only|just|to|than|extra|additional|its|their|some|\d)/;
/** An adjective of description after a comma: hyphenated, or with a descriptive ending. */
const DESCRIPTIVE = /^[a-z]+-[a-z]+|^[a-z]{3,}(?:al|ive|ous|ic|ible|able|less|ful)\b/;

/** A label that names what is still to come: "Plan:", "Follow-ups:", "Next steps:", "Proposal:". */
const TO_COME_LABEL =
  /^[^\w]*(?:plan|proposal|proposed|follow-?ups?|next steps?|to-?dos?|action items?|recommendations?|suggestions?|ideas?|goals?)\W{0,3}:/;
/** Verbs of writing a text: what they make from the user's material is this reply. */
const WRITING =
  /^(?:written(?: up)?|wrote(?: up)?|summari[sz]ed|compiled|put together|pulled together|drafted|condensed|collated)$/;
/** The user's material as a source: "from the notes you gave me", "based on your message". */
const FROM_USERS =
  /^\s*(?:up\s+)?(?:from|based on|out of|using)\s+(?:the|your|what)\b[^.;:]{0,40}?(?:\byou (?:gave|sent|pasted|shared|forwarded|provided|attached)\b|\byour (?:notes|message|draft|points|list)\b)/;

/** A key that names what an event touched ("Affected:", "Impacted versions:"): its scope, nobody's action. */
const SCOPE_KEY = /^(?:affected|impacted|involved)(?:\s+[a-z]+){0,2}$/;

function englishRole(plain: string, verb: string): Attribution | undefined {
  const { before, after } = around("en", plain, verb);
  const lowerVerb = verb.toLowerCase();
  // ("Affected: Apache Log4j 2.0-beta9 through 2.14.1": a key that names what was touched lists a scope.)
  if (
    before.trim() === "" &&
    /^(?:\s+[a-z]+){0,2}\s*:/.test(after) &&
    SCOPE_KEY.test(`${lowerVerb}${after.split(":")[0]}`.trim())
  ) {
    return { agent: "none", reason: "a key that names what an event touched" };
  }
  // "Raised-bed plan", "baked-in defaults": a participle joined by a hyphen to a word (not a particle) is an adjective.
  if (/^[a-z]+(?:ed|en|t)-(?!(?:up|out|off|back|down|in|over|on)$)[a-z]+$/.test(lowerVerb)) {
    return { agent: "none", reason: "a participle used as an adjective" };
  }
  // "Follow-ups: staged flag rollouts…", "Plan: three sessions a week, built around…": under a label
  // that names what is still to come, a participle describes the plan, not work done.
  if (TO_COME_LABEL.test(before) && !/\b(?:i|we)\b|\bi'/.test(before)) {
    return { agent: "none", reason: "under a label of what is still to come" };
  }
  // "Written up from the notes you gave me": writing from the user's own material is writing this reply.
  if (WRITING.test(lowerVerb) && FROM_USERS.test(after)) {
    return { agent: "none", reason: "the reply itself, written from what the user gave" };
  }
  // Only a participle that opens its clause (after a label or a dash): a subject before it decides otherwise.
  const clause = (before.split(/[;—–]|:(?!\d)|\s-\s/).at(-1) ?? before).trim();
  if (clause !== "" && !/^(?:and|or|but)$/.test(clause)) return undefined;
  const words = after.trim().split(/\s+/);
  const [first, second, third] = words.map((word) => word.replace(/[^\w'-]/g, ""));
  // "Under-kneaded dough tears easily": the participle, a bare noun, a present verb and its predicate.
  if (
    first &&
    second &&
    !/[,;:.]$/.test(words[0]!) &&
    !DETERMINER.test(first) &&
    PRESENT_AFTER.test(second) &&
    !/^[A-Z]/.test(words[1]!) &&
    (third === undefined || PREDICATE_NEXT.test(third))
  ) {
    return { agent: "none", reason: "a participle used as an adjective" };
  }
  // "randomised, double-blind, placebo-controlled": one of a row of adjectives describing something.
  if (/^,\s*/.test(after) && DESCRIPTIVE.test(after.replace(/^,\s*/, ""))) {
    return { agent: "none", reason: "a participle used as an adjective" };
  }
  // "Licensed data providers (e.g.": a kind named with its examples.
  if (/\((?:e\.g\.|for example|such as)\s*$/.test(after) && !/[;:]/.test(after)) {
    return { agent: "none", reason: "examples named, not a report" };
  }
  return undefined;
}

/** Suffixes that turn a verb into a noun: a rate, an amount, a fee, a person, a record. */
const NOUN_SUFFIX = /^(?:率|量|额|费|者|人员|单|记录|进度|情况|效率|能力|方式|流程)/;
/** A bare 好/完 (no 了) and then a time to come or the next step: 做完我来讲, 改好再发, 看完后. */
const ONCE_DONE = /^[完好](?![了过])\s*(?:再|就|后|之后|以后|我来|我再|我会|我帮|然后)/;
/** A 把 clause that ends on a bare 好 or 完: what the user is asked to have done (把…都保存好；). */
const ASKED_DONE = /^[完好]\s*(?:[；;。！!]|$)/;
const CONDITION = /(?:如|若|如果|假如|倘若|万一|要是)(?:果)?\s*(?:已经?|已)\s*$/;
/** A clause that relays someone's report: 仓库那边反馈, 他们说, 对方表示, 律师认为. */
const RELAYED_BY =
  /(?:他们|他|她|对方|那边|团队|同事|厂商|物流|仓库|快递|客服|律师|医生|银行|官方|[\u4e00-\u9fff]{1,6}(?:那边|方面|部门|组))(?:也|还)?(?:说|反馈|表示|回复|称|告知|确认说|认为)(?![明下一的])/;

/** The user telling what they did: 您说已经…, 你刚才说 (not 你说的, "what you said"). */
const USER_SAID = /(?:^|[，,。；;：:\s])(?:你|您)(?:刚才|刚刚|之前|前面|也)?说(?![的过明])/;

function chineseRole(plain: string, verb: string): Attribution | undefined {
  const { before, after, at } = around("zh", plain, verb);
  // (您说已经在 App 里提交了凭证: what the user says they did is theirs; a 我 after it acts again.)
  const said = USER_SAID.exec(before);
  if (said && !/我/.test(before.slice(said.index))) return { agent: "user", reason: "what the user says they did" };
  // (Not where the noun is the topic of a completion in its own clause — 报销单已经提交到 OA 了 —
  // which the rules read as they would with any other topic.)
  const ownClause = after.split(/[，,；;。]/)[0] ?? after;
  if (NOUN_SUFFIX.test(after) && !/已|刚/.test(before.slice(-2)) && !/已|了/.test(ownClause)) {
    return { agent: "none", reason: "a verb inside a noun" };
  }
  const clause = before.split(/[，,；;：:。]/).at(-1) ?? before;
  if (!/已|刚/.test(clause) && ONCE_DONE.test(after)) {
    return { agent: "user", reason: "a condition: once it is done" };
  }
  if (/把/.test(clause) && !/已|刚|我/.test(clause) && ASKED_DONE.test(after)) {
    return { agent: "user", reason: "what the user is asked to have done" };
  }
  if (CONDITION.test(clause)) return { agent: "none", reason: "a condition: if it has happened" };
  // (The relay may stand in an earlier clause of the sentence, or right after a label: 已做的处理：他们说….)
  const relay = RELAYED_BY.exec(plain);
  if (relay && !/我/.test(plain.slice(0, relay.index + relay[0].length))) {
    const relayedAfter =
      (relay.index < at && !/我/.test(plain.slice(relay.index, at))) ||
      /^[^，,。；;]{0,4}[：:]\s*$/.test(plain.slice(at + verb.length, relay.index));
    if (relayedAfter) return { agent: "third party", reason: "what someone else reports" };
  }
  return undefined;
}
