import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { CliIO } from "../../src/cli/output.js";
import { serveCommand } from "../../src/cli/serveImpl.js";
import { freshPostgresDatabase, noticePostgresSkipped, PG_URL } from "../support/backends.js";

/**
 * `agentloop serve --db postgres://…` (issue P): the same pages and live signature through its
 * read-only pool. Skipped with a notice when the tests have no PostgreSQL server.
 */

noticePostgresSkipped();

const quiet: CliIO = { out: () => undefined, err: () => undefined, isTTY: false };

describe.skipIf(!PG_URL)("agentloop serve on a PostgreSQL ledger", () => {
  it("lists the runs, shows a run with its path and answers the live stream", async () => {
    const db = await freshPostgresDatabase();
    expect(await main(["migrate", "--db", db], quiet)).toBe(0);
    expect(await main(["eval", "eval/01-answers.json", "--db", db], quiet)).toBe(0);
    const lines: string[] = [];
    const stop = new AbortController();
    const io: CliIO = { out: (line) => lines.push(line), err: (line) => lines.push(line), isTTY: false };
    const served = serveCommand(io, { db, port: "0", host: "127.0.0.1", poll: "50" }, stop.signal);
    const deadline = Date.now() + 10_000;
    while (!lines.some((line) => line.includes("http://")) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const url = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(lines.join("\n"))![1]!;
    try {
      const runs = (await (await fetch(`${url}/api/runs?state=completed`)).json()) as Array<{ runId: string }>;
      expect(runs.length).toBeGreaterThan(0);
      const page = await (await fetch(`${url}/runs/${runs[0]!.runId}`)).text();
      expect(page).toContain('data-testid="path">opening → sampling');
      expect((await fetch(`${url}/api/metrics?window=1d`)).status).toBe(200);
      const stream = await fetch(`${url}/api/stream`);
      const reader = stream.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).toMatch(/^event: ledger\ndata: \{"signature":"\d+\/0\/\d+"\}/);
      await reader.cancel();
    } finally {
      stop.abort();
    }
    expect(await served).toBe(0);
    expect(lines.at(-1)).toBe("agentloop serve: stopped");
  }, 60_000);
});
