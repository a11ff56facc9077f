import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import type { CliIO } from "../../../src/cli/output.js";
import { readLedger } from "../../../src/cli/readLedger.js";
import { type ServeHandle, startServe } from "../../../src/host/serve/server.js";
import { freshPostgresDatabase, noticePostgresSkipped, PG_URL } from "../../support/backends.js";

/** The serve app on a PostgreSQL ledger (issue P): the same pages and live signature. */

noticePostgresSkipped();

let serve: ServeHandle | undefined;
afterEach(async () => {
  await serve?.close();
  serve = undefined;
});

const quiet: CliIO = { out: () => undefined, err: () => undefined, isTTY: false };

describe.skipIf(!PG_URL)("agentloop serve on a PostgreSQL ledger", () => {
  it("lists the runs, shows a run with its path and answers the live stream", async () => {
    const db = await freshPostgresDatabase();
    expect(await main(["migrate", "--db", db], quiet)).toBe(0);
    expect(await main(["eval", "eval/01-answers.json", "--db", db], quiet)).toBe(0);
    serve = await startServe({ read: (effect) => readLedger(db, effect), dbLabel: db, port: 0, pollIntervalMs: 50 });
    const runs = (await (await fetch(`${serve.url}/api/runs?state=completed`)).json()) as Array<{ runId: string }>;
    expect(runs.length).toBeGreaterThan(0);
    const page = await (await fetch(`${serve.url}/runs/${runs[0]!.runId}`)).text();
    expect(page).toContain('data-testid="path">opening → sampling');
    const metrics = await fetch(`${serve.url}/api/metrics?window=1d`);
    expect(metrics.status).toBe(200);
    const stream = await fetch(`${serve.url}/api/stream`);
    const reader = stream.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^event: ledger\ndata: \{"signature":"\d+\/0\/\d+"\}/);
    await reader.cancel();
  }, 60_000);
});
