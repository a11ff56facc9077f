import { describe, expect, it } from "vitest";
import { controlCharacterIn, terminalText } from "../../src/domain/printable.js";

describe("terminalText", () => {
  it("writes every C0, DEL and C1 control character as a visible \\uXXXX escape", () => {
    expect(terminalText("a\u001b[2Jb\u0007c\bd\re\nf\tg\u007fh\u0080i\u009bj\u009fk")).toBe(
      "a\\u001b[2Jb\\u0007c\\u0008d\\u000de\\u000af\\u0009g\\u007fh\\u0080i\\u009bj\\u009fk",
    );
  });

  it("keeps line feeds and tabs of multi-line text with lines: true, and turns a CRLF into a line feed", () => {
    expect(terminalText("one\r\ntwo\n\tthree\r\u001b[1A", { lines: true })).toBe("one\ntwo\n\tthree\\u000d\\u001b[1A");
  });

  it("leaves text without control characters as it is, other languages and emoji included", () => {
    const text = "Wrote a.txt — 已完成 ✅ «ok» \u00a0 \u200b";
    expect(terminalText(text)).toBe(text);
  });

  it("keeps JSON text valid JSON with the same value", () => {
    const value = { by: "a\u007fb\u009bc", nested: ["\u0085"] };
    const shown = terminalText(JSON.stringify(value));
    expect(shown).not.toMatch(/\p{Cc}/u);
    expect(JSON.parse(shown)).toEqual(value);
  });
});

describe("controlCharacterIn", () => {
  it("names the first control character as U+XXXX, or nothing", () => {
    expect(controlCharacterIn("alice")).toBeUndefined();
    expect(controlCharacterIn("al\u009bice\u001b")).toBe("U+009B");
    expect(controlCharacterIn("x\ny")).toBe("U+000A");
  });
});
