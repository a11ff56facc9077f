import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@effect/vitest";
import { Effect } from "effect";
import { main } from "../../src/cli/main.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { runNode } from "../support/childProcess.js";
import {
  closure,
  createHostDatabase,
  fileSha256,
  listDir,
  newRun,
  receipt,
  toolCall,
  toolResult,
  userInput,
  useTempDir,
  withLedger,
} from "../support/tempDir.js";

const tmp = useTempDir("agentloop-cli-readonly-");
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN_MODULE = new URL("../../src/cli/main.ts", import.meta.url).href;
/** The child process starts tsx and the whole CLI; allow for a loaded machine (not a timing assertion). */
const CHILD_TIMEOUT = 120_000;

interface CliResult {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

const runInProcess = (argv: string[]) =>
  Effect.promise(async (): Promise<CliResult> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line), isTTY: false });
    return { code, out, err };
  });

/** Every command that only reads the ledger, as argv before `--db`. */
const READ_ONLY_COMMANDS: ReadonlyArray<{ readonly name: string; readonly argv: string[] }> = [
  { name: "runs", argv: ["runs"] },
  { name: "inspect", argv: ["inspect", "run-1"] },
  { name: "trace", argv: ["trace", "trace-run-1"] },
  { name: "metrics", argv: ["metrics"] },
  { name: "health", argv: ["health"] },
];

/** One closed run with a call, its result and its receipt, in a freshly migrated ledger. */
const seedLedger = (file: string) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    yield* store.createRun(newRun("run-1", { startedAt: "2024-01-01T00:00:00Z" }));
    yield* store.appendEvents("run-1", [userInput(1), toolCall(2, "c1"), toolResult(3, "c1")]);
    yield* store.recordReceipt(receipt("run-1", "c1"));
    yield* store.finishRun("run-1", closure(4));
  }).pipe(withLedger({ filename: file }));

const expectOneErrorLine = (result: CliResult, message: string | RegExp) => {
  expect(result.code).toBe(1);
  expect(result.out).toEqual([]);
  expect(result.err).toHaveLength(1);
  if (typeof message === "string") expect(result.err[0]).toBe(`agentloop: ${message}`);
  else expect(result.err[0]).toMatch(message);
};

describe("read-only commands never create or migrate a database (in-process)", () => {
  it.effect.each(READ_ONLY_COMMANDS)("$name on a missing file: one line, exit 1, nothing created", ({ argv }) =>
    Effect.gen(function* () {
      const file = tmp.path("missing.db");
      const result = yield* runInProcess([...argv, "--db", file]);
      expectOneErrorLine(result, `no ledger database at ${file}`);
      // Neither the file nor its -wal/-shm companions.
      expect(listDir(tmp.dir())).toEqual([]);
    }),
  );

  it.effect.each(READ_ONLY_COMMANDS)("$name in a directory that does not exist: one line, exit 1", ({ argv }) =>
    Effect.gen(function* () {
      const file = tmp.path("nowhere", "ledger.db");
      const result = yield* runInProcess([...argv, "--db", file]);
      expectOneErrorLine(result, `no ledger database at ${file}`);
      expect(listDir(tmp.dir())).toEqual([]);
    }),
  );

  it.effect.each(READ_ONLY_COMMANDS)(
    "$name on a 0001 host database: one line, exit 1, not migrated and not backed up",
    ({ argv }) =>
      Effect.gen(function* () {
        const file = tmp.path("host.db");
        createHostDatabase(file);
        const hash = fileSha256(file);
        const result = yield* runInProcess([...argv, "--db", file]);
        expectOneErrorLine(result, `${file} has no run ledger (schema version 1); run agentloop migrate --db ${file}`);
        expect(fileSha256(file)).toBe(hash);
        expect(listDir(tmp.dir())).toEqual(["host.db"]);
      }),
  );

  it.effect.each(READ_ONLY_COMMANDS)("$name on an empty file: one line, exit 1, the file stays empty", ({ argv }) =>
    Effect.gen(function* () {
      const file = tmp.path("empty.db");
      writeFileSync(file, "");
      const result = yield* runInProcess([...argv, "--db", file]);
      expectOneErrorLine(result, `${file} has no run ledger (schema version 0); run agentloop migrate --db ${file}`);
      expect(statSync(file).size).toBe(0);
      expect(listDir(tmp.dir())).toEqual(["empty.db"]);
    }),
  );

  it.effect.each(READ_ONLY_COMMANDS)("$name on a text file: one line, exit 1, the file unchanged", ({ argv }) =>
    Effect.gen(function* () {
      const file = tmp.path("notes.db");
      writeFileSync(file, "just some notes\n".repeat(10));
      const hash = fileSha256(file);
      const result = yield* runInProcess([...argv, "--db", file]);
      expectOneErrorLine(result, `${file} is not a SQLite database`);
      expect(fileSha256(file)).toBe(hash);
      expect(listDir(tmp.dir())).toEqual(["notes.db"]);
    }),
  );

  it.effect.each(READ_ONLY_COMMANDS)("$name on a migrated ledger leaves its bytes and mtime unchanged", ({ argv }) =>
    Effect.gen(function* () {
      const file = tmp.path("ledger.db");
      yield* seedLedger(file);
      const hash = fileSha256(file);
      const { mtimeMs } = statSync(file);
      const files = listDir(tmp.dir());
      const result = yield* runInProcess([...argv, "--db", file]);
      expect(result.err).toEqual([]);
      expect(result.code).toBe(0);
      expect(fileSha256(file)).toBe(hash);
      expect(statSync(file).mtimeMs).toBe(mtimeMs);
      expect(listDir(tmp.dir())).toEqual(files);
    }),
  );

  it.effect("runs and inspect still read a migrated ledger", () =>
    Effect.gen(function* () {
      const file = tmp.path("ledger.db");
      yield* seedLedger(file);
      const runs = yield* runInProcess(["runs", "--db", file, "--json"]);
      expect(runs.code).toBe(0);
      expect(JSON.parse(runs.out.join("\n"))).toEqual([
        expect.objectContaining({ runId: "run-1", state: "completed", reason: "answered", steps: 1 }),
      ]);
      const inspect = yield* runInProcess(["inspect", "run-1", "--db", file]);
      expect(inspect.code).toBe(0);
      expect(inspect.out[0]).toBe("run run-1  session session-1  trace trace-run-1");
      expect(inspect.out).toContain('receipt c1 read_file: ok, verified, evidence {"bytes":42}');
    }),
  );

  it.effect("inspect of an unknown run on a migrated ledger is one line and exit 1", () =>
    Effect.gen(function* () {
      const file = tmp.path("ledger.db");
      yield* seedLedger(file);
      const result = yield* runInProcess(["inspect", "nope", "--db", file]);
      expectOneErrorLine(result, `no run nope in ${file}`);
    }),
  );
});

describe("read-only commands (child process)", () => {
  it(
    "runs on a missing file: one stderr line and no stack trace, exit 1, no file created",
    async () => {
      // The source through tsx, not bin/ (which runs whatever dist/ was last built).
      const entry = tmp.path("cli.mjs");
      writeFileSync(
        entry,
        `import { main } from ${JSON.stringify(MAIN_MODULE)};\nprocess.exitCode = await main(process.argv.slice(2));\n`,
      );
      const ledgers = tmp.path("ledgers");
      mkdirSync(ledgers);
      const file = join(ledgers, "missing.db");
      const { code, stdout, stderr } = await runNode(["--import", "tsx", entry, "runs", "--db", file], ROOT);
      expect({ code, stdout, stderr }).toEqual({
        code: 1,
        stdout: "",
        stderr: `agentloop: no ledger database at ${file}\n`,
      });
      expect(listDir(ledgers)).toEqual([]);
    },
    CHILD_TIMEOUT,
  );
});
