import { assertionLines } from "./assertionLines.js";

/**
 * From a final answer to the sentences that can assert something: code, quotes and content that
 * *is* the reply (a draft, a template) are removed; list markers, checkboxes and status emoji are
 * turned into flags; the rest is split into sentences with `Intl.Segmenter`. The first part, which
 * lines are kept and with what flags, is assertionLines.ts; this file splits those lines into
 * sentences, with inline code and quotations held as placeholders so their words are not read.
 */

export type Language = "en" | "zh";

export interface Sentence {
  /** The sentence as the answer wrote it (inline code shown as written), for reports. */
  readonly text: string;
  /** The sentence the detector reads: inline code and quotations replaced by placeholders. */
  readonly plain: string;
  readonly language: Language;
  /** A checked checkbox (`- [x]`) or a done marker (✅ ✔ ☑) leads the line. */
  readonly doneMarker: boolean;
  /** A checked checkbox leads the line: its task is done even when written in the imperative. */
  readonly checked: boolean;
  /** A table row whose status cell says done. */
  readonly doneRow: boolean;
  /** A table row at all: its cells are labels or plans unless a status cell says done. */
  readonly tableRow: boolean;
  /** The done cell of a table row under a column that gives each row's status (Status, 结果). */
  readonly statusCell?: string | undefined;
}

/** Placeholders: a word in both languages that no lexicon entry contains. */
export const CODE = "CODEREF";
export const QUOTE = "QUOTEREF";

const HAN = /[\u3400-\u9fff]/;
const HAN_GLOBAL = /[\u3400-\u9fff]/g;

export const languageOf = (text: string): Language => {
  const han = text.match(HAN_GLOBAL)?.length ?? 0;
  const latin = text.match(/[A-Za-z]+/g)?.length ?? 0;
  // Chinese answers carry English identifiers; a few Han characters make the sentence Chinese.
  return han >= 2 && han * 2 >= latin ? "zh" : HAN.test(text) && latin === 0 ? "zh" : "en";
};

// (The release notes list it under 'Android: fixed GATT reconnect': straight single quotes quote
// too, when no letter stands outside either of them, which keeps apostrophes out — don't, users'.)
const QUOTED =
  /"[^"\n]{2,}"|“[^”\n]{2,}”|「[^」\n]{1,}」|『[^』\n]{1,}』|‘[^’\n]{3,}’|《[^》\n]{1,}》|(?<![\w'])'(?=[^\s'])[^'\n]{2,80}(?<=[^\s'])'(?![\w'])/g;
const INLINE_CODE = /`[^`\n]+`/;
// (MR !238: GitLab's sign of a merge request before its number is an identifier, as a code span
// is — not an exclamation that ends the sentence.)
const MERGE_REQUEST = /(?<![\w!])![0-9]+\b/;
const CODE_OR_QUOTE = new RegExp(`${INLINE_CODE.source}|${QUOTED.source}|${MERGE_REQUEST.source}`, "g");

const sentenceSegmenters = {
  en: new Intl.Segmenter("en", { granularity: "sentence" }),
  zh: new Intl.Segmenter("zh", { granularity: "sentence" }),
} as const;

const PLACEHOLDER = new RegExp(`${CODE}|${QUOTE}`, "g");

/** The sentences of an answer that may assert something, in order. */
export function assertionSentences(answer: string): Sentence[] {
  const sentences: Sentence[] = [];
  for (const { line, doneMarker, doneRow, checked, tableRow, statusCell } of assertionLines(answer)) {
    // What the placeholders stand for, in order, to show each sentence as it was written.
    const originals: string[] = [];
    const plainLine = line.replace(CODE_OR_QUOTE, (span) => {
      originals.push(span);
      return span.startsWith("`") || span.startsWith("!") ? ` ${CODE} ` : ` ${QUOTE} `;
    });
    const language = languageOf(plainLine.replace(PLACEHOLDER, ""));
    let next = 0;
    for (const { segment } of sentenceSegmenters[language].segment(plainLine)) {
      const plain = segment.replace(/\s+/g, " ").trim();
      const text = plain.replace(PLACEHOLDER, () => originals[next++] ?? "");
      if (plain === "" || plain === CODE || plain === QUOTE) continue;
      sentences.push({ text, plain, language, doneMarker, doneRow, checked, tableRow, statusCell });
    }
  }
  return sentences;
}
