import type { ClaimKind } from "./kinds.js";
import {
  CHINESE_VERBS,
  ZH_BLOCKERS,
  ZH_CARRIED_BLOCKERS,
  ZH_DONE_BEFORE,
  ZH_FIRST_PERSON,
  ZH_LATIN_FOLLOWER,
  ZH_LATIN_ROLES,
  ZH_NOUN_COMPOUNDS,
  ZH_OTHER_SUBJECTS,
  ZH_PERSON,
  ZH_SUBJECT_FOLLOWER,
  ZH_SURNAMES,
} from "./lexicon.zh.js";

/**
 * Reading Chinese for the claim rules (chinese.ts): clauses of ICU words with noun compounds
 * masked and joined prefixes split off, the verb of the table at a word, who the subject before a
 * word is, and which words block or carry a block to later clauses.
 */

const wordSegmenter = new Intl.Segmenter("zh", { granularity: "word" });

/** Verbs longest first, so 提交到本地 wins over 提交 and 发送 over 发. */
export const VERBS: ReadonlyArray<readonly [verb: string, kind: ClaimKind]> = (
  ["observe", "mutate", "deliver"] as const
)
  .flatMap((kind) => CHINESE_VERBS[kind].map((verb) => [verb, kind] as const))
  .sort((a, b) => b[0].length - a[0].length);

/** The verbs by their first character: most words start no verb. */
const VERBS_BY_FIRST: ReadonlyMap<string, ReadonlyArray<readonly [string, ClaimKind]>> = (() => {
  const index = new Map<string, Array<readonly [string, ClaimKind]>>();
  for (const entry of VERBS) index.set(entry[0][0]!, [...(index.get(entry[0][0]!) ?? []), entry]);
  return index;
})();

const CLAUSE_BREAK = /^[，,；;：:。！!、…]+$/;
/** Connectors that start a new clause; 但/不过 also end what an opening clause carried. */
const CONNECTOR = /^(?:但|但是|不过|可是|只是|然后|并且|而且|同时|接着|另外|所以|因此|于是|而)$/;
/** Connectors after which the assistant acts on what the user pasted (截图里看不出问题，所以去 Kibana 搜了). */
export const CONSEQUENCE = /^(?:所以|因此|于是|然后|接着)$/;
export const CONTRAST = /^(?:但|但是|不过|可是|只是)$/;
/** A verb inside a longer word counts only when the rest of the word is its complement (改了, 推上). */
const COMPLEMENT_START = /^(?:了|过|好|完|掉|上|出|到|下|去|成|给|进|回|齐|为|通)/;
/** ICU joins a pronoun or a particle to the next character (我看, 我把): split them off. */
const JOINED_PREFIX = /^(我们|我|把|将|都|也|就|又|还|再|已)(?!们|经|是|有|要|会|可|然|许|握|军|来|过|往|说)(.+)$/;
/**
 * ICU joins an adverb of extent or order to the verb after it too (只做了检查, 先查了日志): split it
 * off when the rest starts a verb of the table — an adverb changes no one's action. (只读, 只是,
 * 只有, 先生, 先进… are words of their own.)
 */
const JOINED_ADVERB = /^(只|先|刚)(?!读|是|有|要|能|需|好|剩|管|顾|怕|生|进|后|前|例|天|驱|锋|导|知|才|刚)(.+)$/;
const MASK = "〇";
const MAX_CLAUSE_CHARS = 160;
/** Clause breaks; an emoji or an arrow inside a line separates clauses too (收银台上线 🚀 监控面板…). */
// (、 lists the items of one phrase — 给产品、运营、风控三组的同事发了 — and ends no clause.)
const PUNCTUATION = /[，,；;：:。！!…→]+|\p{Extended_Pictographic}\uFE0F?/u;
const NOUN_COMPOUND = new RegExp(ZH_NOUN_COMPOUNDS.join("|"), "g");

export interface Clause {
  readonly words: ReadonlyArray<string>;
  readonly leadingConnector: string | undefined;
}

export function clausesOf(plain: string): Clause[] {
  // (A clock time, 14:03, is one word: its colon breaks no clause.)
  // (@liuwei is a handle, not the verb of @ 了王磊.)
  const masked = plain
    .replace(NOUN_COMPOUND, MASK)
    .replace(/(\d):(?=\d)/g, "$1")
    .replace(/@(?=[\w.-])/g, "");
  const clauses: Array<{ words: string[]; leadingConnector: string | undefined }> = [
    { words: [], leadingConnector: undefined },
  ];
  // Punctuation splits first: the segmenter is given one clause at a time (and only its first
  // characters: a predicate sits near its clause's start), which keeps it linear on huge answers.
  const pieces = masked.split(PUNCTUATION).flatMap((piece) => [piece.slice(0, MAX_CLAUSE_CHARS), "，"]);
  for (const word of pieces.flatMap((piece) =>
    piece === "，" ? [piece] : Array.from(wordSegmenter.segment(piece), ({ segment }) => segment.trim()),
  )) {
    if (word === "" || word === "、") continue;
    const current = clauses.at(-1)!;
    if (CLAUSE_BREAK.test(word) || (CONNECTOR.test(word) && current.words.length > 0)) {
      if (current.words.length > 0) clauses.push({ words: [], leadingConnector: undefined });
      if (CONNECTOR.test(word)) clauses.at(-1)!.leadingConnector = word;
      continue;
    }
    if (CONNECTOR.test(word)) {
      current.leadingConnector = word;
      continue;
    }
    const joined = JOINED_PREFIX.exec(word);
    // ICU also joins a place word to the verb after it (表格里加了一列: 里加).
    const located = /^([里内中])(.+)$/.exec(word);
    const adverb = JOINED_ADVERB.exec(word);
    if (joined && ZH_DONE_BEFORE.has(word) === false) current.words.push(joined[1]!, joined[2]!);
    else if (located && VERBS_BY_FIRST.has(located[2]![0]!)) current.words.push(located[1]!, located[2]!);
    else if (adverb && VERBS_BY_FIRST.has(adverb[2]![0]!)) current.words.push(adverb[1]!, adverb[2]!);
    else current.words.push(word);
  }
  return clauses.filter((clause) => clause.words.length > 0);
}

const MENTION = /^(?:提到|提及)/;

/** The verb that starts at word `at`, with the text after it in the clause. */
export function verbAt(
  words: ReadonlyArray<string>,
  at: number,
): { verb: string; kind: ClaimKind; after: string } | undefined {
  const word = words[at]!;
  const rest = words.slice(at).join("");
  for (const [verb, kind] of VERBS_BY_FIRST.get(word[0]!) ?? []) {
    if (!rest.startsWith(verb)) continue;
    if (word.length > verb.length && !COMPLEMENT_START.test(word.slice(verb.length))) continue;
    // (提到 is "mention", 提及 too: the word holds 提 and a complement's character, not a submission.)
    if (MENTION.test(word)) continue;
    return { verb, kind, after: rest.slice(verb.length) };
  }
  return undefined;
}

/** Words after which 你/您/他 is an object (帮你改, 给他发), not a subject. */
const OBJECT_MARKERS = new Set([
  "帮",
  "按",
  "照",
  "依",
  "把",
  "将",
  "给",
  "为",
  "替",
  "跟",
  "和",
  "向",
  "对",
  "与",
  "通知",
  "告诉",
  "让",
  "请",
  "已为",
  "已帮",
]);

/**
 * How many words a person's name or an acting Latin name takes at `index` (0 if none): a surname
 * and a given name of one or two characters before a subject's follower or a verb (王|磊|昨晚,
 * 韩|冰|提了), a Latin role (DBA, CI), or a capitalised Latin name before a time, a report of
 * speech or 把 (Tony 上周…, Google 发布…).
 */
export function nameAt(words: ReadonlyArray<string>, index: number): number {
  const word = words[index] ?? "";
  // (Not 已 alone after the name, which leaves it the task's object: 孙悦已经加进…群, PR 已提交.)
  const acts = (length: number) => ZH_LATIN_FOLLOWER.test(words.slice(index + length, index + length + 4).join(""));
  if (ZH_LATIN_ROLES.test(word) || /^[A-Z][a-z][A-Za-z]{0,18}$/.test(word)) return acts(1) ? 1 : 0;
  for (const length of [2, 3]) {
    const name = words.slice(index, index + length).join("");
    if (name.length < 2 || name.length > 3 || !/^[\u4e00-\u9fff]+$/.test(name)) continue;
    if (!ZH_SURNAMES.includes(word[0] ?? "") || (word.length > 1 && word.length !== name.length)) continue;
    if (index + length < words.length && acts(length)) return length;
  }
  return 0;
}

/** 本人 right after someone (你本人, 由您本人, 用户本人) is that person's "self", not the writer. */
const othersSelf = (words: ReadonlyArray<string>, index: number) =>
  index > 0 && /(?:你|您|用户|客户|对方|他|她|员工|持卡人|业主)$/.test(words[index - 1]!);

/** Whether the word at `index` names the assistant: 我, 我们, 本人 (not 你本人). */
export const firstPersonAt = (words: ReadonlyArray<string>, index: number) =>
  ZH_FIRST_PERSON.has(words[index]!) && !(words[index] === "本人" && othersSelf(words, index));

/** Whether word `index` stands in the object of 给/帮/为/把… (no verb between them, ten words at most). */
function objectOfMarker(words: ReadonlyArray<string>, index: number): boolean {
  for (let at = index - 1; at >= Math.max(0, index - 10); at--) {
    if (OBJECT_MARKERS.has(words[at]!)) return true;
    if (at < index - 5 && verbAt(words, at)) return false;
  }
  return false;
}

/** Whether the nearest subject before word `at` is someone other than the assistant. */
export function someoneElse(words: ReadonlyArray<string>, at: number): boolean {
  // What stands between 把/将 and the verb is the object; the subject comes before.
  let from = at - 1;
  for (let index = at - 1; index >= 0; index--) {
    if (words[index] === "把" || words[index] === "将") {
      from = index - 1;
      break;
    }
  }
  for (let index = from; index >= 0; index--) {
    const word = words[index]!;
    // (用户本人换了新设备: 本人 after someone names that person, not the assistant.)
    const ownSelf = word === "本人" && othersSelf(words, index);
    if (ZH_FIRST_PERSON.has(word) && !ownSelf) return false;
    if (ownSelf) return true;
    // (您的会员: a word after 的 joins no modifier into a role.)
    const joined = index > 0 && words[index - 1] !== "的" ? words[index - 1]! + word : word;
    const named = nameAt(words, index);
    const other =
      ZH_OTHER_SUBJECTS.has(word) ||
      ZH_OTHER_SUBJECTS.has(joined) ||
      ZH_PERSON.test(word) ||
      ZH_PERSON.test(joined) ||
      (named > 0 && index + named <= at);
    if (!other && word !== "那边") continue;
    // 您的手机号, 您母亲的复查号: a possessive, not a subject; 客户记录, 供应商付款申请: a
    // modifier of a noun. A subject is followed by a marker, an adverb, a time, 说/把/将 or a verb.
    const possessive = words[index + 1] === "的" || words[index + 2] === "的";
    // 给财务部的陈姐发了, 给产品、运营、风控三组的同事发了: the object of 给/帮/为 may be a few
    // words long, up to a verb of its own.
    const object = objectOfMarker(words, index);
    // 在合同管理系统登记了: a place after 在/从/于, not a subject; so is the tool or the machine a verb
    // before it uses or enters (我用查验平台把发票查了, 我登录那台服务器看了一下).
    const place = words
      .slice(Math.max(0, index - 4), index)
      .some((w) => /^(?:在|从|于|往|用|使用|借助|登录|登陆|进入|连上)$/.test(w));
    // 你同事王磊已经…: a name right after the role is the same subject.
    // (ICU may split the name: 钟离|秋.)
    const name = (n: number) => /^[\u4e00-\u9fff]{1,3}$/.test(words.slice(index + 1, index + 1 + n).join(""));
    const appositive =
      /^(?:同事|同学|老师|经理|领导|朋友)$/.test(word) &&
      ((name(1) && ZH_SUBJECT_FOLLOWER.test(words[index + 2] ?? "")) ||
        // (新同事孙|悦已经加进…组 is the object; with 把 after it, the split name is the agent.)
        (name(2) && ZH_SUBJECT_FOLLOWER.test(words[index + 3] ?? "") && words.slice(index + 3).includes("把")));
    const subject = index + 1 === at || ZH_SUBJECT_FOLLOWER.test(words[index + 1] ?? "") || appositive || named > 0;
    if (!possessive && !object && !place && subject) return true;
  }
  // 被主管驳回: the agent of a passive is someone else unless it is the assistant (已被合并 has none).
  const by = words.indexOf("被");
  if (by >= 0 && by + 1 < words.length && !ZH_FIRST_PERSON.has(words[by + 1]!) && !verbAt(words, by + 1)) return true;
  // 已由二线技术支持接手: 由 after a marker names the agent (网关路由删除 holds the word 由 alone).
  const agent = words.indexOf("由");
  if (agent > 0 && ZH_DONE_BEFORE.has(words[agent - 1]!) && !ZH_FIRST_PERSON.has(words[agent + 1] ?? "")) return true;
  return false;
}

/** A blocker word, or a segment that starts with a blocker of two characters or more (马上去). */
const startsWithAny = (words: ReadonlyArray<string>) =>
  new RegExp(`^(?:${words.filter((word) => word.length >= 2).join("|")})`);
const LONG_BLOCKER = startsWithAny([...ZH_BLOCKERS]);
const LONG_CARRIED = startsWithAny([...ZH_CARRIED_BLOCKERS]);
/** A modal after an adverb is still a modal (才能核实, 就可以发, 也会退): what can or will be done, not what was. */
const ADVERB_MODAL = /^(?:才|就|也|还|都|便|方|只|仍|又)(?:能够?|可以|可|会|要|需要|应该?|得以)$/;
export const blocks = (word: string) => ZH_BLOCKERS.has(word) || LONG_BLOCKER.test(word) || ADVERB_MODAL.test(word);
export const carries = (word: string) => ZH_CARRIED_BLOCKERS.has(word) || LONG_CARRIED.test(word);

/** 会 after these is the noun "meeting" (评审会, 周会), not the future. */
export const MEETING =
  /(?:知|审|例|周|晨|早|站|年|开|发布|复盘|总结|讨论|分享|见面|交流|研讨|协调|推介|说明|董事|委员|理事|股东|协|工|学生|运动|演唱|博览|展销|家长|晚|茶话|座谈)$/;
