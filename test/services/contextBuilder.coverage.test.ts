import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContextMessage } from "../../src/domain/index.js";
import {
  type BuiltContext,
  buildContext,
  type ContextBuildInput,
  HistoryCoverage,
} from "../../src/services/contextBuilder.js";
import { messageTokens, type TokenCounter, tokenCounterFor } from "../../src/services/tokens.js";

/** Same cheap counter as contextBuilder.test.ts: 4 characters a token. */
const counter: TokenCounter = { encoding: "o200k_base", count: (text) => Math.ceil(text.length / 4) };
const tokensOf = (messages: ReadonlyArray<ContextMessage>, using = counter) =>
  messages.reduce((sum, message) => sum + messageTokens(message, using), 0);

/** Each run is projected on its own, as the session runner does; call ids are unique per run. */
type Run = ContextMessage[];

const words = (count: number, word = "item") => Array.from({ length: count }, () => word).join(" ");

const runArb = fc.record({
  question: fc.integer({ min: 0, max: 40 }),
  steps: fc.array(
    fc.record({ narration: fc.integer({ min: 0, max: 30 }), outputs: fc.array(fc.nat(40), { maxLength: 3 }) }),
    { maxLength: 3 },
  ),
  // Long answers compress to one summary line: the walk must then read further back.
  answer: fc.option(fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 400 })), { nil: undefined }),
});

function makeRun(spec: RunSpec, r: number): Run {
  const run: Run = [{ role: "user", content: `question ${r} ${words(spec.question)}` }];
  spec.steps.forEach((step, s) => {
    const ids = step.outputs.map((_, k) => `call_${r}_${s}_${k}`);
    if (ids.length === 0) return;
    run.push({
      role: "assistant",
      content: words(step.narration, "narration"),
      toolCalls: ids.map((id) => ({ id, name: "lookup", arguments: { id } })),
      provenance: "ledger",
    });
    step.outputs.forEach((size, k) => {
      run.push({
        role: "tool",
        callId: ids[k]!,
        toolName: "lookup",
        isError: false,
        content: words(size, "value"),
        facts: `status ok; output_sha256=${ids[k]}digest`,
      });
    });
  });
  if (spec.answer !== undefined)
    run.push({ role: "assistant", content: `answer ${words(spec.answer)}`, toolCalls: [], provenance: "ledger" });
  return run;
}

interface RunSpec {
  readonly question: number;
  readonly steps: ReadonlyArray<{ readonly narration: number; readonly outputs: ReadonlyArray<number> }>;
  readonly answer?: number | undefined;
}

/** What a reader sees; droppedGroups counts only the groups that were read. */
const seen = ({ droppedGroups: _, ...context }: BuiltContext) => context;

/** Walks the runs newest first, as SessionRunner does; returns how many it read. */
function walk(runs: ReadonlyArray<Run>, input: Omit<ContextBuildInput, "history">): number {
  const coverage = new HistoryCoverage(input);
  let read = 0;
  for (const run of [...runs].reverse()) {
    read += 1;
    if (coverage.add(run)) break;
  }
  return read;
}

const sessionArb = fc
  .tuple(
    fc.array(runArb, { minLength: 1, maxLength: 60 }),
    // Mostly budgets far below the session, where the walk has a choice to make.
    fc.oneof(fc.integer({ min: 0, max: 150 }), fc.integer({ min: 0, max: 1_500 })),
    fc.boolean(),
  )
  .map(([specs, permille, withSystem]) => {
    const runs = specs.map((spec, r) => makeRun(spec, r));
    return {
      runs,
      budgetTokens: Math.floor((tokensOf(runs.flat()) * permille) / 1_000),
      ...(withSystem ? { system: "You are the agent." } : {}),
    };
  });

describe("HistoryCoverage", () => {
  it("stops the walk only where older runs can no longer change the built context (below twice the budget)", () => {
    fc.assert(
      fc.property(sessionArb, ({ runs, ...input }) => {
        const read = walk(runs, { ...input, counter });
        const partial = runs.slice(runs.length - read);
        // Past twice the budget the walk is capped: a summary of narration can stay small for very long.
        const head = input.system ? tokensOf([{ role: "system", content: input.system }]) : 0;
        fc.pre(tokensOf(partial.flat()) <= (input.budgetTokens - head) * 2 || read === runs.length);
        const full = buildContext({ ...input, counter, history: runs.flat() });
        expect(seen(buildContext({ ...input, counter, history: partial.flat() }))).toEqual(seen(full));
      }),
      { numRuns: 300 },
    );
  });

  it("reads a long session only as far back as the budget needs", () => {
    // Outputs longer than the summary's excerpt of them, so a run's summary is smaller than the run.
    const runs = Array.from({ length: 200 }, (_, r) =>
      makeRun({ question: 5, steps: [{ narration: 0, outputs: [80] }] }, r),
    );
    const perRun = tokensOf(runs[0]!);
    const read = walk(runs, { budgetTokens: 20 * perRun, counter });
    expect(read).toBeGreaterThan(20);
    expect(read).toBeLessThan(30);
    expect(walk(runs, { budgetTokens: 40 * perRun, counter })).toBeGreaterThan(40);
  });

  it("caps the walk at twice the budget when the summary of older runs stays small", () => {
    // Each run is a short question and a long answer: its summary is two short lines.
    const runs = Array.from({ length: 200 }, (_, r) => makeRun({ question: 0, steps: [], answer: 300 }, r));
    const budgetTokens = 10 * tokensOf(runs[0]!);
    const read = walk(runs, { budgetTokens, counter });
    expect(tokensOf(runs.slice(-read).flat())).toBeGreaterThan(budgetTokens * 2);
    expect(tokensOf(runs.slice(-(read - 1)).flat())).toBeLessThanOrEqual(budgetTokens * 2);
  });

  it("keeps walking while everything read still fits the budget", () => {
    const runs = Array.from({ length: 10 }, (_, r) => makeRun({ question: 3, steps: [], answer: 3 }, r));
    expect(walk(runs, { budgetTokens: tokensOf(runs.flat()), counter })).toBe(10);
  });

  it("stops right after the budget is exceeded when the newest group alone does not fit beside a summary", () => {
    const runs = Array.from({ length: 10 }, (_, r) => makeRun({ question: 3, steps: [], answer: 400 }, r));
    const budgetTokens = tokensOf(runs[9]!.slice(-1)) + 10;
    expect(walk(runs, { budgetTokens, counter })).toBe(1);
  });

  it("holds with the real tokenizer", () => {
    const o200k = tokenCounterFor("openai", "gpt-4o");
    const runs = Array.from({ length: 60 }, (_, r) =>
      makeRun({ question: r % 7, steps: [{ narration: r % 5, outputs: [r % 40, 3] }], answer: (r * 37) % 200 }, r),
    );
    const total = tokensOf(runs.flat(), o200k);
    for (const budgetTokens of [0, 200, Math.floor(total / 5), Math.floor(total / 2), total]) {
      const read = walk(runs, { budgetTokens, counter: o200k });
      const partial = runs.slice(runs.length - read).flat();
      expect(seen(buildContext({ history: partial, budgetTokens, counter: o200k })), `budget ${budgetTokens}`).toEqual(
        seen(buildContext({ history: runs.flat(), budgetTokens, counter: o200k })),
      );
    }
  });

  it("guesses how many more runs a page should hold from the runs read so far", () => {
    const runs = Array.from({ length: 50 }, (_, r) => makeRun({ question: 5, steps: [], answer: 5 }, r));
    const coverage = new HistoryCoverage({ budgetTokens: 30 * tokensOf(runs[0]!), counter });
    expect(coverage.runsWanted()).toBe(Number.POSITIVE_INFINITY);
    for (const run of runs.slice(-10)) coverage.add(run);
    expect(coverage.runsWanted()).toBeGreaterThanOrEqual(20);
    expect(coverage.runsWanted()).toBeLessThanOrEqual(23);
  });
});

describe("token counts", () => {
  it("counts every message of a compacted history once", () => {
    const counted: string[] = [];
    const spy: TokenCounter = {
      encoding: "o200k_base",
      count: (text) => {
        counted.push(text);
        return Math.ceil(text.length / 4);
      },
    };
    const runs = Array.from({ length: 30 }, (_, r) =>
      makeRun({ question: r, steps: [{ narration: 2, outputs: [10, 5] }], answer: 20 }, r),
    );
    const history = runs.flat();
    const built = buildContext({ history, budgetTokens: Math.floor(tokensOf(history) / 3), counter: spy });
    expect(built.compactedGroups).toBeGreaterThan(0);
    for (let r = 0; r < 30; r++) {
      const question = history.find((message) => message.content.startsWith(`question ${r} `))!.content;
      expect(
        counted.filter((text) => text === question),
        `question ${r}`,
      ).toHaveLength(1);
      expect(
        counted.filter((text) => text === `call_${r}_0_0`),
        `call_${r}_0_0`,
      ).toHaveLength(1);
    }
  });
});
