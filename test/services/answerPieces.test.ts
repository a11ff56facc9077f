import { describe, expect, it } from "vitest";
import { answerPieces, HEAD_BYTES, PIECE_BYTES, TAIL_BYTES } from "../../src/services/answerPieces.js";
import { detectClaims } from "../../src/services/claims.js";
import { readClaims } from "../../src/services/verification.js";

/**
 * How a final answer is cut for the claim detector: ordinary answers whole, long ones in pieces of
 * bounded size at line and sentence ends, very long ones by their start and end only.
 */

const EN = "The quick brown fox jumps over the lazy dog. ";
const ZH = "敏捷的棕色狐狸跳过了那只懒狗。";
const bytes = (text: string) => Buffer.byteLength(text, "utf8");
const repeatTo = (unit: string, size: number) => unit.repeat(Math.ceil(size / bytes(unit)));

describe("answerPieces", () => {
  it("hands an ordinary answer to the detector whole, as written", () => {
    const answer = "I checked the logs.\n\n```\nrm -rf build\n```\nDone: deployed to staging.";
    expect(answerPieces(answer)).toEqual({ pieces: [answer] });
  });

  it("cuts a long line after sentence ends into pieces of bounded size that make up the answer", () => {
    for (const unit of [EN, ZH]) {
      const answer = repeatTo(unit, 200 * 1024);
      const { pieces, scope } = answerPieces(answer);
      expect(scope).toBeUndefined();
      expect(pieces.join("")).toBe(answer);
      expect(pieces.length).toBeGreaterThan(1);
      for (const piece of pieces) expect(bytes(piece)).toBeLessThanOrEqual(PIECE_BYTES);
      for (const piece of pieces.slice(0, -1)) expect(piece).toMatch(/(?:\. |。)$/);
    }
  });

  it("cuts at a line end when the answer has lines", () => {
    const answer = repeatTo(`${EN}${EN}\n`, 100 * 1024);
    const { pieces } = answerPieces(answer);
    expect(pieces.join("")).toBe(answer);
    for (const piece of pieces.slice(0, -1)) expect(piece.endsWith("\n")).toBe(true);
  });

  it("never cuts a character in two where there is no space or sentence end", () => {
    const answer = "😀".repeat(40_000);
    const { pieces } = answerPieces(answer);
    expect(pieces.join("")).toBe(answer);
    for (const piece of pieces) expect(piece).toMatch(/^(?:😀)+$/u);
  });

  it("keeps a fenced block that a cut falls into as code in the next piece", () => {
    const code = "I sent the email to the whole team.\n".repeat(2_000);
    const answer = `Here is the log of the script:\n\n\`\`\`\n${code}\`\`\`\nNothing else to report.`;
    const { pieces } = answerPieces(answer);
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.slice(1).every((piece) => piece.startsWith("```\n"))).toBe(true);
    expect(readClaims(answer).claims).toEqual([]);
  });

  it("reads only the start and the end of an answer over the cap, and says which part", () => {
    const filler = repeatTo(EN, 600 * 1024);
    const answer = `I sent the invoice to Alice. ${filler}I deleted the old branch. ${filler}I deployed the fix to production.`;
    const { scope } = answerPieces(answer);
    expect(scope).toMatchObject({ answerBytes: bytes(answer) });
    expect(scope!.headBytes).toBeLessThanOrEqual(HEAD_BYTES);
    expect(scope!.tailBytes).toBeLessThanOrEqual(TAIL_BYTES);
    expect(scope!.headBytes).toBeGreaterThan(HEAD_BYTES - PIECE_BYTES);
    expect(scope!.tailBytes).toBeGreaterThan(TAIL_BYTES - PIECE_BYTES);
    const sentences = readClaims(answer).claims.map((claim) => claim.sentence);
    expect(sentences).toEqual(["I sent the invoice to Alice.", "I deployed the fix to production."]);
  });

  it("finds in a long answer without newlines the claims the detector finds in its sentences", () => {
    for (const [unit, claim] of [
      [EN, "I pushed the release tag. "],
      [ZH, "我已经把邮件发给了客户。"],
    ] as const) {
      const filler = repeatTo(unit, 40 * 1024);
      const expected = detectClaims(claim.trim());
      expect(expected.length).toBe(1);
      expect(readClaims(`${filler}${claim}${filler}`).claims).toEqual(expected);
    }
  });
});
