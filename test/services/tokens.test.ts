import { countTokens as countCl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";
import * as modelSpecs from "gpt-tokenizer/models";
import { describe, expect, it } from "vitest";
import type { ContextMessage } from "../../src/domain/index.js";
import { anthropicProvider } from "../../src/services/providers/anthropic.js";
import {
  ANTHROPIC_ESTIMATE_FACTOR,
  contextWindowFor,
  MEMO_MAX_ENTRIES,
  MEMO_MAX_LENGTH,
  messageTokens,
  type TokenCounter,
  tokenCounterFor,
} from "../../src/services/tokens.js";

/** Text on which the two OpenAI encodings disagree, so a wrong choice shows. */
const SAMPLE =
  "Die Überprüfung des Deployments ergab: 3 Dienste laufen, 1 Dienst (payments-api) meldet Fehler 503. 日本語のテキストも含まれています。";

describe("tokenCounterFor", () => {
  it("uses o200k_base for the gpt-4o, gpt-4.1, gpt-5 and o-series models", () => {
    for (const model of ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-5", "gpt-5-mini", "o3", "o4-mini"]) {
      expect(tokenCounterFor("openai", model).encoding, model).toBe("o200k_base");
    }
  });

  it("uses cl100k_base for gpt-4, gpt-4-turbo and gpt-3.5 models", () => {
    for (const model of ["gpt-4", "gpt-4-0613", "gpt-4-turbo", "gpt-3.5-turbo", "gpt-3.5-turbo-0125"]) {
      expect(tokenCounterFor("openai", model).encoding, model).toBe("cl100k_base");
    }
  });

  it("counts exactly as the chosen OpenAI encoding does", () => {
    expect(countO200k(SAMPLE)).not.toBe(countCl100k(SAMPLE));
    expect(tokenCounterFor("openai", "gpt-4o").count(SAMPLE)).toBe(countO200k(SAMPLE));
    expect(tokenCounterFor("openai", "gpt-5").count(SAMPLE)).toBe(countO200k(SAMPLE));
    expect(tokenCounterFor("openai", "gpt-4").count(SAMPLE)).toBe(countCl100k(SAMPLE));
    expect(tokenCounterFor("openai", "gpt-3.5-turbo").count(SAMPLE)).toBe(countCl100k(SAMPLE));
  });

  it("estimates claude models as cl100k × 1.15, rounded up", () => {
    const counter = tokenCounterFor("anthropic", "claude-sonnet-4-5");
    expect(counter.encoding).toBe("anthropic_estimate");
    expect(ANTHROPIC_ESTIMATE_FACTOR).toBe(1.15);
    expect(counter.count(SAMPLE)).toBe(Math.ceil(countCl100k(SAMPLE) * 1.15));
    expect(counter.count(SAMPLE)).toBeGreaterThan(countCl100k(SAMPLE));
  });

  it("uses the Anthropic estimate for a claude model behind another API family", () => {
    expect(tokenCounterFor("openai_chat", "claude-3-5-haiku").encoding).toBe("anthropic_estimate");
  });

  it("uses the Anthropic estimate for any model of the anthropic API family", () => {
    expect(tokenCounterFor("anthropic", "some-future-model").encoding).toBe("anthropic_estimate");
  });

  it("uses the Anthropic estimate for any model behind the Anthropic provider's own API family", () => {
    const provider = anthropicProvider({ model: "some-future-model", apiKey: "test-key" });
    expect(provider.apiFamily).toBe("anthropic-messages");
    expect(tokenCounterFor(provider.apiFamily, provider.model).encoding).toBe("anthropic_estimate");
  });

  it("counts the empty string as zero tokens", () => {
    expect(tokenCounterFor("anthropic", "claude-opus-4").count("")).toBe(0);
    expect(tokenCounterFor("openai", "gpt-4o").count("")).toBe(0);
  });

  it("counts special-token markers in a text as plain text instead of refusing it", () => {
    const text = "The tokenizer splits on <|endoftext|> and <|im_start|>.";
    expect(() => countO200k(text)).toThrow(/special token/);
    const plain = countO200k(text, { disallowedSpecial: new Set() });
    expect(tokenCounterFor("openai", "gpt-4o").count(text)).toBe(plain);
    expect(plain).toBeGreaterThan(countO200k("The tokenizer splits on  and ."));
    expect(tokenCounterFor("anthropic", "claude-sonnet-4-5").count(text)).toBeGreaterThan(0);
  });

  it("counts a text the same again, short or long, also past its memo's capacity", () => {
    const counter = tokenCounterFor("openai", "gpt-4o");
    const long = `${SAMPLE} `.repeat(Math.ceil(MEMO_MAX_LENGTH / SAMPLE.length) + 1);
    expect(long.length).toBeGreaterThan(MEMO_MAX_LENGTH);
    for (const text of [SAMPLE, long, "lookup"]) {
      expect(counter.count(text)).toBe(countO200k(text));
      expect(counter.count(text)).toBe(countO200k(text));
    }
    for (let n = 0; n <= MEMO_MAX_ENTRIES; n++) counter.count(`item ${n}`);
    expect(counter.count(SAMPLE)).toBe(countO200k(SAMPLE));
    expect(counter.count("item 7")).toBe(countO200k("item 7"));
  });

  it("falls back to o200k_base for unknown models", () => {
    expect(tokenCounterFor("scripted", "cassette").encoding).toBe("o200k_base");
  });
});

describe("contextWindowFor", () => {
  it.each([
    ["gpt-4.1", 1_047_576],
    ["gpt-4.1-mini", 1_047_576],
    ["gpt-5", 400_000],
    ["gpt-5-mini", 400_000],
    ["gpt-4o", 128_000],
    ["gpt-4o-mini", 128_000],
    ["o1", 200_000],
    ["o1-mini", 128_000],
    ["o3", 200_000],
    ["o3-mini", 200_000],
    ["o4-mini", 200_000],
    ["gpt-4o-2024-08-06", 128_000],
    ["gpt-4-turbo", 128_000],
    ["gpt-4", 8_192],
    ["gpt-4-0613", 8_192],
    ["gpt-3.5-turbo", 16_385],
    ["claude-sonnet-4-5", 200_000],
    ["claude-3-5-haiku", 200_000],
  ])("gives %s a window of %i tokens", (model, window) => {
    expect(contextWindowFor(model)).toBe(window);
  });

  it("agrees with gpt-tokenizer's model table for every model in it", () => {
    const specs = Object.entries(modelSpecs as Record<string, { context_window?: number }>).filter(
      ([, spec]) => typeof spec?.context_window === "number",
    );
    expect(specs.length).toBeGreaterThan(50);
    for (const [name, spec] of specs) expect(contextWindowFor(name), name).toBe(spec.context_window);
  });

  it("gives a dated snapshot of a known model the known model's window", () => {
    expect(contextWindowFor("o3-mini-2099-01-01")).toBe(200_000);
    expect(contextWindowFor("gpt-4o-mini-2099-01-01")).toBe(128_000);
    expect(contextWindowFor("gpt-4-0999")).toBe(8_192);
  });

  it("gives an unknown model a conservative 128k window", () => {
    expect(contextWindowFor("cassette")).toBe(128_000);
    expect(contextWindowFor("llama-3-70b")).toBe(128_000);
  });
});

describe("messageTokens", () => {
  const counter = tokenCounterFor("openai", "gpt-4o");

  it("counts a plain message as its content plus a fixed overhead of 4", () => {
    expect(messageTokens({ role: "user", content: SAMPLE }, counter)).toBe(4 + countO200k(SAMPLE));
    expect(messageTokens({ role: "system", content: "" }, counter)).toBe(4);
  });

  it("counts an assistant message's tool call names and JSON arguments", () => {
    const message: ContextMessage = {
      role: "assistant",
      content: "Looking.",
      toolCalls: [
        { id: "c1", name: "lookup", arguments: { i: 1 } },
        { id: "c2", name: "shell", arguments: "raw not json" },
      ],
    };
    expect(messageTokens(message, counter)).toBe(
      4 +
        countO200k("Looking.") +
        countO200k("lookup") +
        countO200k('{"i":1}') +
        countO200k("shell") +
        countO200k("raw not json"),
    );
  });

  it("counts a message once per counter and reuses the count", () => {
    const counted: string[] = [];
    const spy: TokenCounter = {
      encoding: "o200k_base",
      count: (text) => {
        counted.push(text);
        return text.length;
      },
    };
    const message: ContextMessage = {
      role: "assistant",
      content: "Looking.",
      toolCalls: [{ id: "c1", name: "lookup", arguments: { i: 1 } }],
    };
    expect(messageTokens(message, spy)).toBe(4 + 8 + 6 + 7);
    expect(messageTokens(message, spy)).toBe(4 + 8 + 6 + 7);
    expect(counted).toEqual(["Looking.", "lookup", '{"i":1}']);
    // Another message with the same content is another message; another counter counts anew.
    expect(messageTokens({ ...message }, spy)).toBe(4 + 8 + 6 + 7);
    expect(counted).toHaveLength(6);
    expect(messageTokens(message, counter)).toBe(
      4 + countO200k("Looking.") + countO200k("lookup") + countO200k('{"i":1}'),
    );
  });

  it("counts a tool result's call id and content", () => {
    const message: ContextMessage = {
      role: "tool",
      callId: "call_123",
      toolName: "lookup",
      content: '{"value":"item"}',
      isError: false,
      facts: "status ok",
    };
    expect(messageTokens(message, counter)).toBe(4 + countO200k("call_123") + countO200k('{"value":"item"}'));
  });
});
