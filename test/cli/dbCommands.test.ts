import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@effect/vitest";
import Sqlite from "better-sqlite3";
import { Effect } from "effect";
import { main } from "../../src/cli/main.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import * as Ledger from "../../src/persistence/ledger.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from "../../src/persistence/migrations/index.js";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { fixtureTool } from "../../src/services/tools/fixtureTool.js";
import {
  createHostDatabase,
  fileSha256,
  listDir,
  MIGRATIONS_TABLE_DDL,
  newRun,
  toolCall,
  userInput,
  useTempDir,
  withLedger,
} from "../support/tempDir.js";

const tmp = useTempDir();
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = fileURLToPath(new URL("../../bin/agentloop.mjs", import.meta.url));
/** Child processes start tsx and the whole CLI; allow for a loaded machine (this is not a timing assertion). */
const CHILD_TIMEOUT = 120_000;

interface CliResult {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

/** Runs `main` in-process, capturing its output lines. */
const runInProcess = (argv: string[]) =>
  Effect.promise(async (): Promise<CliResult> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line), isTTY: false });
    return { code, out, err };
  });

const lines = (text: string) => text.split("\n").filter((line) => line.length > 0);

/** Runs the real CLI entry (bin/agentloop.mjs) in a child process. */
const runChild = (argv: string[]) =>
  Effect.async<CliResult>((resume) => {
    const child = spawn(process.execPath, [BIN, ...argv], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    child.on("error", (error) => resume(Effect.die(error)));
    child.on("close", (code) => resume(Effect.succeed({ code: code ?? -1, out: lines(stdout), err: lines(stderr) })));
    // If the test is interrupted (e.g. timed out), do not leave the child behind.
    return Effect.sync(() => child.kill("SIGKILL"));
  });

/** Two open runs (one with a dangling call) in a migrated ledger. */
const seedOpenRuns = (file: string) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore;
    yield* store.createRun(newRun("run-a", { startedAt: "2024-01-01T00:00:00Z" }));
    yield* store.appendEvents("run-a", [userInput(1), toolCall(2, "c1")]);
    yield* store.createRun(newRun("run-b", { sessionId: "session-2", startedAt: "2024-01-01T00:00:01Z" }));
  }).pipe(withLedger({ filename: file }));

const CLOSED_LINES = [
  "closed run-a (session session-1) as failed/interrupted; 1 dangling call(s) cancelled",
  "closed run-b (session session-2) as failed/interrupted; 0 dangling call(s) cancelled",
];

describe("agentloop migrate / recover (in-process)", () => {
  it.effect("migrate on a new file prints schema version and the applied migrations", () =>
    Effect.gen(function* () {
      const file = tmp.path("new.db");
      const result = yield* runInProcess(["migrate", "--db", file]);
      expect(result).toEqual({
        code: 0,
        out: [`${file}: schema version ${LATEST_SCHEMA_VERSION}`, `applied: ${Object.keys(MIGRATIONS).join(", ")}`],
        err: [],
      });
    }),
  );

  it.effect("migrate on a 0001 host database prints the backup path, which exists", () =>
    Effect.gen(function* () {
      const file = tmp.path("host.db");
      createHostDatabase(file);
      const result = yield* runInProcess(["migrate", "--db", file]);
      expect(result.code).toBe(0);
      expect(result.out.slice(0, 2)).toEqual([
        `${file}: schema version ${LATEST_SCHEMA_VERSION}`,
        `applied: ${Object.keys(MIGRATIONS).join(", ")}`,
      ]);
      const backup = new RegExp(`^backup: (.+\\.bak-1-${LATEST_SCHEMA_VERSION}-\\d{8}T\\d{6}Z)$`).exec(
        result.out[2] ?? "",
      )?.[1];
      expect(backup && existsSync(backup)).toBe(true);
    }),
  );

  it.effect("migrate on an up-to-date file says so", () =>
    Effect.gen(function* () {
      const file = tmp.path("new.db");
      yield* Ledger.migrate(file);
      const result = yield* runInProcess(["migrate", "--db", file]);
      expect(result.out).toEqual([`${file}: schema version ${LATEST_SCHEMA_VERSION}`, "already up to date"]);
    }),
  );

  it.effect("migrate --json prints the report as one JSON line", () =>
    Effect.gen(function* () {
      const file = tmp.path("new.db");
      const result = yield* runInProcess(["migrate", "--db", file, "--json"]);
      expect(result.out).toHaveLength(1);
      expect(JSON.parse(result.out[0]!)).toMatchObject({
        filename: file,
        fromVersion: 0,
        toVersion: LATEST_SCHEMA_VERSION,
        backupPath: null,
      });
    }),
  );

  it.effect("recover prints each run it closed, then 'no interrupted runs' the second time", () =>
    Effect.gen(function* () {
      const file = tmp.path("ledger.db");
      yield* seedOpenRuns(file);
      expect(yield* runInProcess(["recover", "--db", file])).toEqual({ code: 0, out: CLOSED_LINES, err: [] });
      expect(yield* runInProcess(["recover", "--db", file])).toEqual({
        code: 0,
        out: ["no interrupted runs"],
        err: [],
      });
    }),
  );

  it.effect("recover leaves a run another live process drives open and says which process drives it", () =>
    Effect.gen(function* () {
      const file = tmp.path("ledger.db");
      const result = yield* Effect.gen(function* () {
        const store = yield* AgentRunStore;
        yield* store.createRun(newRun("live-run"), [userInput(1)]);
        return yield* runInProcess(["recover", "--db", file]);
      }).pipe(withLedger({ filename: file, owner: { heartbeatMs: 60_000, expiryMs: 120_000 } }));
      expect(result).toEqual({
        code: 0,
        out: [
          "no interrupted runs",
          expect.stringMatching(
            new RegExp(
              `^left live-run \\(session session-1\\) open: process ${process.pid} on .+ still drives it \\(heartbeat \\d{4}-`,
            ),
          ),
        ],
        err: [],
      });
    }),
  );
});

interface BadInput {
  readonly name: string;
  /** Creates whatever the case needs in `dir` and returns the argv and the path to watch. */
  readonly prepare: (dir: string) => { argv: string[]; watch?: string };
}

const newerSchema = (file: string) => {
  const db = new Sqlite(file);
  db.exec(MIGRATIONS_TABLE_DDL);
  db.exec("INSERT INTO effect_sql_migrations (migration_id, name) VALUES (1, 'host_schema'), (99, 'future')");
  db.close();
};

const BAD_INPUTS: ReadonlyArray<BadInput> = [
  { name: "migrate without --db", prepare: () => ({ argv: ["migrate"] }) },
  { name: "an unknown command", prepare: (dir) => ({ argv: ["frobnicate", "--db", `${dir}/x.db`] }) },
  {
    name: "an unknown option (the host database is not migrated)",
    prepare: (dir) => {
      createHostDatabase(`${dir}/host.db`);
      return { argv: ["migrate", "--db", `${dir}/host.db`, "--bogus"], watch: `${dir}/host.db` };
    },
  },
  ...(["migrate", "recover"] as const).flatMap((command): BadInput[] => [
    {
      name: `${command} on a text file`,
      prepare: (dir) => {
        writeFileSync(`${dir}/notes.db`, "just some notes\n".repeat(10));
        return { argv: [command, "--db", `${dir}/notes.db`], watch: `${dir}/notes.db` };
      },
    },
    {
      name: `${command} on a directory`,
      prepare: (dir) => {
        mkdirSync(`${dir}/folder`);
        return { argv: [command, "--db", `${dir}/folder`] };
      },
    },
    {
      name: `${command} in a directory that does not exist`,
      prepare: (dir) => ({ argv: [command, "--db", `${dir}/missing/x.db`] }),
    },
    {
      name: `${command} on a database with a newer schema (99)`,
      prepare: (dir) => {
        newerSchema(`${dir}/newer.db`);
        return { argv: [command, "--db", `${dir}/newer.db`], watch: `${dir}/newer.db` };
      },
    },
    {
      name: `${command} on a corrupt SQLite file`,
      prepare: (dir) => {
        const garbage = Buffer.alloc(4096 - 16, 0xab);
        writeFileSync(`${dir}/corrupt.db`, Buffer.concat([Buffer.from("SQLite format 3\u0000", "latin1"), garbage]));
        return { argv: [command, "--db", `${dir}/corrupt.db`], watch: `${dir}/corrupt.db` };
      },
    },
  ]),
];

describe("agentloop refuses bad input (in-process)", () => {
  it.effect.each(BAD_INPUTS)("$name: one 'agentloop:' line, no stack, non-zero exit, nothing written", ({ prepare }) =>
    Effect.gen(function* () {
      const { argv, watch } = prepare(tmp.dir());
      // The database and its companions: a refused command writes none of them.
      const hashes = () =>
        watch
          ? [watch, `${watch}-wal`, `${watch}-shm`].map((file) => (existsSync(file) ? fileSha256(file) : null))
          : [];
      const hashBefore = hashes();
      const filesBefore = listDir(tmp.dir());
      const result = yield* runInProcess(argv);
      expect(result.code).not.toBe(0);
      expect(result.out).toEqual([]);
      expect(result.err).toHaveLength(1);
      expect(result.err[0]).toMatch(/^agentloop: \S/);
      expect(result.err[0]).not.toContain("\n");
      expect(result.err.join("\n")).not.toMatch(/^ {4}at /m);
      expect(hashes()).toEqual(hashBefore);
      expect(listDir(tmp.dir())).toEqual(filesBefore);
    }),
  );
});

describe("bin/agentloop.mjs (child process)", () => {
  it.effect(
    "migrate on a 0001 host database prints the schema version and the backup path",
    () =>
      Effect.gen(function* () {
        const file = tmp.path("host.db");
        createHostDatabase(file);
        const result = yield* runChild(["migrate", "--db", file]);
        expect(result.err).toEqual([]);
        expect(result.code).toBe(0);
        expect(result.out[0]).toBe(`${file}: schema version ${LATEST_SCHEMA_VERSION}`);
        expect(result.out[2]).toMatch(
          new RegExp(`^backup: .+/host\\.db\\.bak-1-${LATEST_SCHEMA_VERSION}-\\d{8}T\\d{6}Z$`),
        );
      }),
    CHILD_TIMEOUT,
  );

  it.effect(
    "recover prints what it closed, then 'no interrupted runs'",
    () =>
      Effect.gen(function* () {
        const file = tmp.path("ledger.db");
        yield* seedOpenRuns(file);
        expect(yield* runChild(["recover", "--db", file])).toEqual({ code: 0, out: CLOSED_LINES, err: [] });
        expect(yield* runChild(["recover", "--db", file])).toEqual({ code: 0, out: ["no interrupted runs"], err: [] });
      }),
    CHILD_TIMEOUT,
  );

  it.effect(
    "a text file given as --db gives one stderr line, exit 1, and the file unchanged",
    () =>
      Effect.gen(function* () {
        const file = tmp.path("notes.db");
        writeFileSync(file, "not a database\n");
        const hash = fileSha256(file);
        const result = yield* runChild(["migrate", "--db", file]);
        expect(result).toEqual({ code: 1, out: [], err: [`agentloop: ${file} is not a SQLite database`] });
        expect(fileSha256(file)).toBe(hash);
        expect(listDir(tmp.dir())).toEqual(["notes.db"]);
      }),
    CHILD_TIMEOUT,
  );

  it.effect(
    "migrate without --db gives one stderr line and exit 2",
    () =>
      Effect.gen(function* () {
        const result = yield* runChild(["migrate"]);
        expect(result).toEqual({ code: 2, out: [], err: ["agentloop: required option '--db <file>' not specified"] });
      }),
    CHILD_TIMEOUT,
  );
});

describe("agentloop recover next to runs nobody drives", () => {
  it.effect("names a run parked for approval, and how to resume or end it", () =>
    Effect.gen(function* () {
      const file = tmp.path("parked.db");
      const runtime = yield* Effect.promise(() =>
        AgentRuntime.make({ database: file, approval: { kinds: ["deliver"] } }),
      );
      const handle = runtime.startRun({
        runId: "parked-run",
        sessionId: "s",
        input: "Say hi",
        provider: scriptedProvider([{ toolCalls: [{ id: "c1", name: "send", arguments: {} }] }]),
        tools: [fixtureTool({ name: "send", kind: "deliver", outcomes: [{ status: "ok", output: "sent" }] })],
      });
      yield* Effect.promise(async () => {
        for await (const event of handle.events) if (event.type === "approval_requested") break;
        await runtime.dispose();
      });
      const result = yield* runInProcess(["recover", "--db", file]);
      expect(result.out).toEqual([
        "no interrupted runs",
        "left parked-run (session s) open: it waits for an approval and no runtime drives it (resume it: agentloop recover --resume; end it: agentloop cancel parked-run)",
      ]);
    }),
  );
});
