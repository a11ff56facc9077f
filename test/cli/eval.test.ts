import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { CliIO } from "../../src/cli/output.js";
import { loadCassettes } from "../../src/host/eval/loadCassettes.js";
import { BACKENDS, freshDatabase, noticePostgresSkipped } from "../support/backends.js";
import { useTempDir } from "../support/tempDir.js";

noticePostgresSkipped();
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const tmp = useTempDir("agentloop-eval-cli-");

/** Runs the CLI in-process, capturing its lines. */
async function runCli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (line) => out.push(line), err: (line) => err.push(line), isTTY: false };
  const code = await main(argv, io);
  return { code, out, err };
}

const valid = (name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  input: "Hello?",
  model: [{ text: "Hi there.", finishReason: "stop" }],
  expect: { terminalState: "completed", reason: "answered" },
  ...overrides,
});

function writeCassette(file: string, content: unknown): string {
  const path = tmp.path(file);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const CASE_KEYS = [
  "correctionTurns",
  "expected",
  "name",
  "pass",
  "reason",
  "receipts",
  "runId",
  "steps",
  "terminalState",
  "traceId",
];
const SUMMARY_KEYS = ["byTerminalState", "claimsWithoutReceipt", "failed", "passed", "qaCompletionRate", "total"];
const TERMINAL_STATES = ["cancelled", "completed", "failed", "incomplete", "unverified"];

// Issue P: the suite runs on each ledger backend (PostgreSQL when the tests have a server).
describe.each(BACKENDS)("agentloop eval --json on the shipped suite, ledger on %s", (backend) => {
  // One run of the whole suite, shared by the assertions below.
  let run: Promise<Awaited<ReturnType<typeof runCli>>> | undefined;
  const suite = () => {
    run ??= freshDatabase(backend, tmp.path("suite.db")).then((db) => runCli(["eval", "eval/", "--json", "--db", db]));
    return run;
  };

  it("exits 0, prints one JSON document and nothing on stderr", async () => {
    const { code, out, err } = await suite();
    expect(code).toBe(0);
    expect(err).toEqual([]);
    expect(() => JSON.parse(out.join("\n"))).not.toThrow();
  });

  it("prints exactly the spec's shape: cases and summary", async () => {
    const report = JSON.parse((await suite()).out.join("\n"));
    expect(Object.keys(report).sort()).toEqual(["cases", "summary"]);
    expect(Object.keys(report.summary).sort()).toEqual(SUMMARY_KEYS);
    expect(Object.keys(report.summary.byTerminalState).sort()).toEqual(TERMINAL_STATES);
    for (const result of report.cases) {
      // `expectedReason` is the one allowed extra key.
      expect(
        Object.keys(result)
          .filter((key) => key !== "expectedReason")
          .sort(),
      ).toEqual(CASE_KEYS);
      for (const receipt of result.receipts) expect(Object.keys(receipt).sort()).toEqual(["status", "toolName"]);
      expect(typeof result.runId).toBe("string");
      expect(typeof result.traceId).toBe("string");
      expect(Number.isInteger(result.steps)).toBe(true);
    }
  });

  it("runs every shipped case, and every case passes", async () => {
    const report = JSON.parse((await suite()).out.join("\n"));
    const shipped = loadCassettes([`${ROOT}eval/`]).map((loaded) => loaded.cassette.name);
    expect(report.cases.map((result: { name: string }) => result.name)).toEqual(shipped);
    expect(report.cases.filter((result: { pass: boolean }) => !result.pass)).toEqual([]);
    expect(report.summary).toMatchObject({ total: shipped.length, passed: shipped.length, failed: 0 });
  });

  it("reports no claims without receipt and a plain-question completion rate of 1", async () => {
    const { summary } = JSON.parse((await suite()).out.join("\n"));
    expect(summary.claimsWithoutReceipt).toBe(0);
    expect(summary.qaCompletionRate).toBe(1);
  });

  it("counts terminal states that add up to the total", async () => {
    const { cases, summary } = JSON.parse((await suite()).out.join("\n"));
    const counted = Object.values(summary.byTerminalState as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(counted).toBe(summary.total);
    expect(summary.byTerminalState.completed).toBe(
      cases.filter((result: { terminalState: string }) => result.terminalState === "completed").length,
    );
  });

  it("gives every case its own run id and trace id", async () => {
    const { cases } = JSON.parse((await suite()).out.join("\n"));
    expect(new Set(cases.map((result: { runId: string }) => result.runId)).size).toBe(cases.length);
    expect(new Set(cases.map((result: { traceId: string }) => result.traceId)).size).toBe(cases.length);
  });
});

describe("agentloop eval: outcomes", () => {
  it("exits 1 when a case's expectation does not match what happened", async () => {
    const file = writeCassette("wrong.json", [
      valid("right"),
      valid("wrong", { expect: { terminalState: "unverified", reason: "receipt_missing" } }),
    ]);
    const { code, out } = await runCli(["eval", file, "--json", "--db", tmp.path("wrong.db")]);
    expect(code).toBe(1);
    const report = JSON.parse(out.join("\n"));
    expect(report.cases.map((result: { name: string; pass: boolean }) => [result.name, result.pass])).toEqual([
      ["right", true],
      ["wrong", false],
    ]);
    expect(report.cases[1]).toMatchObject({
      terminalState: "completed",
      reason: "answered",
      expected: "unverified",
      expectedReason: "receipt_missing",
    });
    expect(report.summary).toMatchObject({ total: 2, passed: 1, failed: 1 });
  });

  it("exits 1 when only the expected reason differs", async () => {
    const file = writeCassette(
      "reason.json",
      valid("reason", { expect: { terminalState: "completed", reason: "receipts_satisfied" } }),
    );
    const { code } = await runCli(["eval", file, "--json", "--db", tmp.path("reason.db")]);
    expect(code).toBe(1);
  });

  it("prints a table with one row per case and the summary lines without --json", async () => {
    const file = writeCassette("table.json", [valid("alpha"), valid("beta")]);
    const { code, out } = await runCli(["eval", file, "--db", tmp.path("table.db")]);
    expect(code).toBe(0);
    expect(out[0]).toMatch(/^case\s+expected\s+got\s+result$/);
    expect(out[1]).toMatch(/^alpha\s+completed\/answered\s+completed\/answered\s+pass$/);
    expect(out[2]).toMatch(/^beta\s+/);
    expect(out).toContain("2/2 cases as expected");
    expect(out.some((line) => line.startsWith("claimsWithoutReceipt: 0"))).toBe(true);
  });
});

describe("agentloop eval: bad cassettes", () => {
  it.each([
    { problem: "an unknown field", content: valid("x", { colour: "red" }), field: '"colour"' },
    { problem: "a field of the wrong type", content: valid("x", { maxSteps: "3" }), field: "maxSteps" },
    {
      problem: "a missing expect",
      content: { name: "x", input: "Hello?", model: [{ text: "Hi." }] },
      field: "expect",
    },
    { problem: "invalid JSON", content: '[{"name": "x",', field: "not valid JSON" },
    { problem: "a duplicate case name", content: [valid("twin"), valid("twin")], field: "name" },
  ])("exits 2 with one 'agentloop:' line naming the file and the problem for $problem", async ({ content, field }) => {
    const file = writeCassette("broken-cassette.json", content);
    const { code, out, err } = await runCli(["eval", file, "--json", "--db", tmp.path("bad.db")]);
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^agentloop: /);
    expect(err[0]).toContain("broken-cassette.json");
    expect(err[0]).toContain(field);
    expect(err[0]).not.toMatch(/\n|\bat .*:\d+:\d+/);
  });

  it("exits 2 for a path that does not exist", async () => {
    const { code, err } = await runCli(["eval", tmp.path("nope.json"), "--db", tmp.path("bad.db")]);
    expect(code).toBe(2);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^agentloop: .*nope\.json: no such file or directory$/);
  });
});

describe("agentloop eval as a child process", () => {
  it("prints the table for eval/01-answers.json and exits 0", async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["bin/agentloop.mjs", "eval", "eval/01-answers.json", "--db", tmp.path("child.db")],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } },
    );
    const lines = stdout.trimEnd().split("\n");
    const cases = loadCassettes([`${ROOT}eval/01-answers.json`]);
    expect(lines[0]).toMatch(/^case\s+expected\s+got\s+result$/);
    expect(lines.slice(1, 1 + cases.length).every((line) => line.endsWith("pass"))).toBe(true);
    expect(lines).toContain(`${cases.length}/${cases.length} cases as expected`);
    expect(stderr).toBe("");
  });
});
