import type { Language } from "./text.js";

/**
 * What the attribution of a completed action shares between the languages: who can act, what the
 * answer around a sentence says about itself, and where the verb stands in the sentence.
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
  /** The answer opens as the recap of a meeting others held ("Standup recap (QA squad):"). */
  readonly recap: boolean;
  /** The answer works over text the user pasted or retold (你贴的录音转写): arranging it writes the reply. */
  readonly pasted: boolean;
  /** Someone other than the assistant acts in the answer ("the authors trained the model…"). */
  readonly othersAct: boolean;
  /** The answer tells the user what to do, step by step (Click…, Go to…, 打开…): a how-to. */
  readonly instructions: boolean;
  /** Two sentences or more place events at dates of the world (in 1215, 于 1949 年): the answer narrates history. */
  readonly history: boolean;
  /** Two lines or more open with a date label (6 月 2 日：): the answer lays out a timeline. */
  readonly timeline: boolean;
  /**
   * The answer says the assistant changed nothing at all ("Nobody on our side touched it",
   * 没有做任何改动, 我没有参与) or, from its opening, declines to make the change: a change it reports
   * with no subject of its own is someone else's or the system's.
   */
  readonly disowned: boolean;
  /**
   * The answer opens by declining what was asked ("I can't help build…", "I haven't run it, and I
   * won't", 我无法…): what it goes on to list is what the user or others could do, what would happen
   * or the alternatives.
   */
  readonly declined: boolean;
  /** Capitalised words the answer writes in mid-sentence: names of people, companies, products. */
  readonly names: ReadonlySet<string>;
}

/** How a sentence names the doer of its verb, before anything else is weighed. */
export type Subject = "first person" | "left out" | "stated";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Where the verb stands in the sentence, and the text before and after it. */
export function around(language: Language, plain: string, verb: string) {
  if (language === "zh") {
    // The occurrence that is completed (带回了, 已退回, 交给了), not the same characters inside an
    // earlier word (返回器, 交流).
    const completed = new RegExp(
      `(?:已经?|刚)\\s*${escapeRegExp(verb)}|${escapeRegExp(verb)}(?=[了过完好掉]|成功|完成|(?:给|到|回|进|出|走)了)`,
    ).exec(plain);
    const at = completed ? completed.index + completed[0].length - verb.length : Math.max(0, plain.indexOf(verb));
    return { lower: plain, before: plain.slice(0, at), after: plain.slice(at + verb.length), at };
  }
  // ("i.e." keeps its length but is no "I": "…, i.e., whether the vowels rose and pushed…".)
  const lower = plain
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(/\bi\.e\./g, "i_e_")
    // (Nor is "I/O" in "Aurora I/O-Optimized fixes that…".)
    .replace(/\bi\/o\b/g, "i_o");
  // ("'s now out" follows the word it is written onto: "it's now out".)
  const edge = /^\w/.test(verb) ? "(?<![\\w-])" : "";
  const found = new RegExp(`${edge}${escapeRegExp(verb.toLowerCase())}(?![\\w-])`).exec(lower);
  const at = found?.index ?? 0;
  return { lower, before: lower.slice(0, at), after: lower.slice(at + (found?.[0].length ?? 0)), at };
}

/** A status that names no agent stands where a report would: in a report, or as a short answer. */
export function unmarkedAgent(context: AnswerContext, short: boolean): Attribution {
  if (context.relayed) return { agent: "third party", reason: "narrated in a summary of a source" };
  if (context.report) return { agent: "assistant", reason: "status in a report of its own work" };
  if (context.othersAct) return { agent: "third party", reason: "the answer narrates what others did" };
  if (context.sentences <= 1 || (short && context.sentences <= 2))
    return { agent: "assistant", reason: "status line, no other agent named" };
  return { agent: "none", reason: "completed form in an explanation that reports no work of its own" };
}
