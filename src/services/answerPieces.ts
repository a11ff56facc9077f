import type { ClaimScope } from "../domain/index.js";

/**
 * How a final answer is handed to the claim detector: in pieces of bounded size, so that reading
 * it costs time in proportion to its length (the sentence segmenter slows down far faster than
 * that on one long line), and so that the verifier can let the event loop run between pieces.
 *
 * An answer up to PIECE_BYTES is one piece, read exactly as written. A longer one is cut at a
 * line end where it can (a blank line first), else after a sentence's end mark, else at a space,
 * else at the size limit (never inside a character). A fenced code block cut in two stays a code
 * block: the next piece opens with a fence. A draft, a summary list or a table cut in two is read
 * from the cut as ordinary lines.
 *
 * An answer over HEAD_BYTES + TAIL_BYTES is read in part: its first HEAD_BYTES and its last
 * TAIL_BYTES (at cuts as above), and the verdict says so (`claimScope`).
 */

/** Most UTF-8 bytes of one piece: an ordinary answer is read whole in one piece. */
export const PIECE_BYTES = 16 * 1024;
/** The part of a long answer read from its start. */
export const HEAD_BYTES = 128 * 1024;
/** The part of a long answer read from its end. */
export const TAIL_BYTES = 128 * 1024;

export interface AnswerPieces {
  readonly pieces: ReadonlyArray<string>;
  /** Set when only the start and the end of the answer are read. */
  readonly scope?: ClaimScope | undefined;
}

/** UTF-8 bytes of the UTF-16 unit at `index` (a surrogate pair's 4 bytes are 2 per unit). */
function unitBytes(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdfff) return 2;
  return 3;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The index `budget` UTF-8 bytes after `from` (at most `end`), never between a surrogate pair. */
function forwardBytes(text: string, from: number, end: number, budget: number): number {
  let index = from;
  let used = 0;
  while (index < end && used + unitBytes(text, index) <= budget) used += unitBytes(text, index++);
  if (index < end && index > from && isHighSurrogate(text.charCodeAt(index - 1))) index -= 1;
  return index;
}

/** The index `budget` UTF-8 bytes before `end` (at least `from`), never between a surrogate pair. */
function backwardBytes(text: string, from: number, end: number, budget: number): number {
  let index = end;
  let used = 0;
  while (index > from && used + unitBytes(text, index - 1) <= budget) used += unitBytes(text, --index);
  if (index > from && index < end && isHighSurrogate(text.charCodeAt(index - 1))) index += 1;
  return index;
}

const byteLength = (text: string) => Buffer.byteLength(text, "utf8");

/** Marks after which a sentence ends: Latin ones need a space after them, CJK ones do not. */
const LATIN_END = new Set([".", "!", "?", ";", "…"]);
const CJK_END = new Set(["。", "！", "？", "；", "…"]);
const isSpace = (char: string) => char === " " || char === "\t" || char === "\u3000" || char === "\n";

/**
 * Where to end a piece that starts at `start` and may reach `limit` (exclusive): the latest good
 * cut in the second half of the span, else `limit` itself. Reads only the span.
 */
function cutBefore(text: string, start: number, limit: number): number {
  const low = start + Math.floor((limit - start) / 2);
  const span = text.slice(low, limit);
  const blank = span.lastIndexOf("\n\n");
  if (blank >= 0) return low + blank + 2;
  const newline = span.lastIndexOf("\n");
  if (newline >= 0) return low + newline + 1;
  let space = -1;
  for (let index = span.length - 1; index >= 0; index--) {
    const char = span[index]!;
    if (CJK_END.has(char)) return low + index + 1;
    if (LATIN_END.has(char) && index + 1 < span.length && isSpace(span[index + 1]!)) return low + index + 2;
    if (space < 0 && isSpace(char)) space = index;
  }
  if (space >= 0) return low + space + 1;
  return limit;
}

/** Where to start reading the end of an answer at or after `from`: the first good cut in the next piece's span. */
function cutAfter(text: string, from: number, end: number): number {
  const high = forwardBytes(text, from, end, PIECE_BYTES / 2);
  const span = text.slice(from, high);
  const newline = span.indexOf("\n");
  if (newline >= 0) return from + newline + 1;
  for (let index = 0; index < span.length; index++) {
    const char = span[index]!;
    if (CJK_END.has(char)) return from + index + 1;
    if (LATIN_END.has(char) && isSpace(span[index + 1] ?? " ")) return from + index + 2;
  }
  const space = span.search(/\s/);
  return space >= 0 ? from + space + 1 : from;
}

/** A fence line as the detector reads one (three backticks or tildes leading the line). */
const FENCE_LINES = /^[ \t]*(?:```|~~~)/gm;
const fenceCount = (text: string) => text.match(FENCE_LINES)?.length ?? 0;
/** What a piece cut inside a fenced block opens with, so that its code stays code. */
const REOPEN_FENCE = "```\n";

/** Cuts text[from, to) into pieces; `inFence`: whether `from` is inside a fenced block. Returns the state at `to`. */
function cutRegion(text: string, from: number, to: number, inFence: boolean, pieces: string[]): boolean {
  let start = from;
  let fenced = inFence;
  while (start < to) {
    const limit = forwardBytes(text, start, to, PIECE_BYTES);
    const end = limit >= to ? to : cutBefore(text, start, Math.max(limit, start + 1));
    const piece = text.slice(start, end);
    pieces.push(fenced ? `${REOPEN_FENCE}${piece}` : piece);
    if (fenceCount(piece) % 2 === 1) fenced = !fenced;
    start = end;
  }
  return fenced;
}

/** The pieces the detector reads of `answer`, and which part of it they cover when not all of it. */
export function answerPieces(answer: string): AnswerPieces {
  const answerBytes = byteLength(answer);
  const pieces: string[] = [];
  if (answerBytes <= HEAD_BYTES + TAIL_BYTES) {
    cutRegion(answer, 0, answer.length, false, pieces);
    return { pieces };
  }
  const headLimit = forwardBytes(answer, 0, answer.length, HEAD_BYTES);
  const headEnd = cutBefore(answer, Math.max(0, headLimit - Math.floor(PIECE_BYTES / 4)), headLimit);
  const fencedAfterHead = cutRegion(answer, 0, headEnd, false, pieces);
  const tailStart = cutAfter(answer, backwardBytes(answer, headEnd, answer.length, TAIL_BYTES), answer.length);
  const skipped = answer.slice(headEnd, tailStart);
  const fencedAtTail = fenceCount(skipped) % 2 === 1 ? !fencedAfterHead : fencedAfterHead;
  cutRegion(answer, tailStart, answer.length, fencedAtTail, pieces);
  return {
    pieces,
    scope: {
      answerBytes,
      headBytes: byteLength(answer.slice(0, headEnd)),
      tailBytes: byteLength(answer.slice(tailStart)),
    },
  };
}
