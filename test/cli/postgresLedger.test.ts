/**
 * Issue P: every CLI command that takes `--db` works on a PostgreSQL URL as on a SQLite file —
 * migrate, eval (writing), and the read-only commands (runs, inspect, trace, metrics, health),
 * plus recover. Skipped with a notice when the tests have no PostgreSQL server (never under CI).
 */
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { CliIO } from "../../src/cli/output.js";
import { LATEST_SCHEMA_VERSION } from "../../src/persistence/migrations/index.js";
import { freshPostgresDatabase, noticePostgresSkipped, PG_URL } from "../support/backends.js";

noticePostgresSkipped();

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (line) => out.push(line), err: (line) => err.push(line), isTTY: false };
  const code = await main(argv, io);
  return { code, out, err };
}

describe.skipIf(!PG_URL)("the CLI on a PostgreSQL ledger", () => {
  it("migrates, writes runs through eval and reads them back with every inspecting command", async () => {
    // The test server trusts loopback, so a password in the URL is accepted and must never be printed.
    const url = new URL(await freshPostgresDatabase());
    url.password = "s3cret-pw";
    const db = url.toString();
    const migrated = await cli(["migrate", "--db", db]);
    expect(migrated.code).toBe(0);
    expect(migrated.out[0]).toMatch(new RegExp(`schema version ${LATEST_SCHEMA_VERSION}$`));
    expect(migrated.out.join("\n")).not.toContain("s3cret-pw");
    const evaluated = await cli(["eval", "eval/01-answers.json", "--db", db]);
    expect(evaluated.code).toBe(0);
    const runs = await cli(["runs", "--db", db, "--json"]);
    expect(runs.code).toBe(0);
    const listed = JSON.parse(runs.out.join("\n"));
    const runId = (listed.runs ?? listed)[0].runId as string;
    for (const argv of [
      ["inspect", runId, "--db", db],
      ["trace", runId, "--db", db],
      ["metrics", "--db", db],
      ["health", "--db", db],
      ["recover", "--db", db],
    ]) {
      const result = await cli(argv);
      expect({ argv: argv[0], code: result.code, err: result.err }).toEqual({ argv: argv[0], code: 0, err: [] });
      expect(result.out.length).toBeGreaterThan(0);
    }
  });

  it("refuses a server that cannot be reached with one line", async () => {
    const result = await cli(["runs", "--db", "postgres://nobody@127.0.0.1:1/none"]);
    expect(result.code).not.toBe(0);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(/^agentloop: /);
  });
});
