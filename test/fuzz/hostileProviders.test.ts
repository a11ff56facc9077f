import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../fuzz/hostile/catalogue.js";
import { SecretMint } from "../../fuzz/hostile/secrets.js";
import { RUN_DEADLINE_MS, runHostileProviders, scanForSecrets } from "../../fuzz/hostileProviders.js";
import { redactText } from "../../src/persistence/payloadHygiene.js";

/**
 * The hostile-providers suite (fuzz/hostileProviders.ts): its catalogue, its secret scan, and a
 * representative subset of its cases through the real SDKs, providers, runtime and SQLite file.
 * `npm run fuzz` runs the whole catalogue.
 */

/** Three wire APIs, streamed and whole: errors, hangs, trickles, broken tool calls, secrets, injection. */
const SMOKE = new Set([
  "openai-chat/stream/final-answer-full-of-secrets",
  "openai-chat/whole/auth-401-key-in-message",
  "openai-chat/stream/keepalive-trickle-forever",
  "openai-chat/whole/tool-args-not-json",
  "openai-chat/whole/reset-before-status",
  "openai-responses/stream/stream-ends-without-terminal-event",
  "openai-responses/whole/rate-limited-retry-after-99999",
  "openai-responses/stream/key-shaped-call-ids-and-names",
  "openai-responses/whole/html-error-page-502",
  "anthropic/stream/content-trickle-forever",
  "anthropic/whole/duplicate-call-ids",
  "anthropic/stream/anthropic-error-event-mid-stream",
  "anthropic/whole/nul-bytes-and-invalid-utf8",
  "anthropic/stream/prompt-injection-claims-completion",
  // Regressions of what the full catalogue found: a quadratic claim detector on a huge answer,
  // secrets glued to word characters, secrets cut in half before redaction, SDK loggers on stderr.
  "openai-chat/whole/huge-text-5mb",
  "anthropic/stream/secrets-glued-to-words",
  "openai-chat/whole/secret-cut-at-error-message-limit",
  "openai-responses/stream/secret-cut-at-anomaly-detail-limit",
  "openai-chat/stream/malformed-json",
]);

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "agentloop-hostile-test-"));
  dirs.push(dir);
  return dir;
};

describe("the hostile-providers catalogue", () => {
  const cases = buildCatalogue();

  it("holds at least 60 distinct hostile responses over the three wire APIs, streamed and whole", () => {
    const ids = cases.map((hostile) => hostile.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(60);
    for (const api of ["openai-chat", "openai-responses", "anthropic"]) {
      const ofApi = cases.filter((hostile) => hostile.api === api);
      expect(ofApi.filter((hostile) => hostile.stream).length).toBeGreaterThanOrEqual(20);
      expect(ofApi.filter((hostile) => !hostile.stream).length).toBeGreaterThanOrEqual(20);
    }
    for (const id of SMOKE) expect(ids).toContain(id);
  });

  it("plants secrets that are unique per case and that the redaction claims to remove", () => {
    const planted = cases.filter((hostile) => !hostile.heavy).flatMap((hostile) => hostile.render().secrets);
    expect(planted.length).toBeGreaterThan(200);
    expect(new Set(planted.map((secret) => secret.needle)).size).toBe(planted.length);
    expect(new Set(planted.map((secret) => secret.shape))).toEqual(
      new Set([
        "openai_key",
        "aws_key_id",
        "github_token",
        "slack_token",
        "env_key",
        "env_secret",
        "bearer",
        "password",
        "private_key",
      ]),
    );
    // Each shape, planted on its own line as the catalogue writes it, is one the redaction removes.
    const mint = new SecretMint("probe", 999);
    mint.all();
    for (const secret of mint.planted) {
      expect(redactText(`line\n${secret.text}\nline`), secret.shape).not.toContain(secret.needle);
      expect(secret.needle.startsWith(secret.fragment)).toBe(true);
    }
  });
});

describe("the secret scan", () => {
  it("finds a planted value in a table column, the -wal file while open and the .db file after a checkpoint", () => {
    const file = join(tempDir(), "scan.db");
    const mint = new SecretMint("scan-probe", 998);
    const token = mint.github();
    const half = mint.openai();
    const db = new Database(file);
    try {
      db.pragma("journal_mode = WAL");
      db.exec("CREATE TABLE notes (id TEXT, body TEXT, raw BLOB)");
      db.prepare("INSERT INTO notes VALUES (?, ?, ?)").run("canary-1", `leaked ${token}`, null);
      db.prepare("INSERT INTO notes VALUES (?, ?, ?)").run("canary-2", "clean", Buffer.from(half.slice(0, 30)));
      const open = scanForSecrets(file, mint.planted, ["canary-1", "canary-2", "canary-3"]);
      expect(open.canariesFound).toBe(2);
      expect(open.tableHits.map((hit) => [hit.place, hit.secret.shape, hit.extent])).toEqual([
        ["notes.body", "github_token", "whole"],
        ["notes.raw", "openai_key", "half"],
      ]);
      expect(open.walBytes).toBeGreaterThan(0);
      expect(open.walFileHits.map((hit) => hit.secret.shape)).toContain("github_token");
      db.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      db.close();
    }
    const closed = scanForSecrets(file, mint.planted, ["canary-1"]);
    expect(closed.dbFileHits.map((hit) => hit.secret.shape)).toContain("github_token");
  });
});

describe("hostile providers against the real runtime (smoke subset)", () => {
  it("ends every run in a terminal state, in time, with a sound ledger and no secret stored", async () => {
    const started = Date.now();
    const report = await runHostileProviders({ filter: (id) => SMOKE.has(id), dir: tempDir() });
    const { figures } = report;

    expect(report.suite).toBe("hostile-providers");
    expect(report.violations).toEqual([]);
    expect(figures.cases).toBe(SMOKE.size);
    expect(figures["cases.openai-chat"]).toBe(8);
    expect(figures["cases.openai-responses"]).toBe(5);
    expect(figures["cases.anthropic"]).toBe(6);
    expect(figures.streamed).toBe(10);
    expect(figures.whole).toBe(9);
    // Provider failures end failed; the plain answers (secrets redacted) end completed.
    expect(figures["terminal.failed"]).toBeGreaterThanOrEqual(6);
    expect(figures["terminal.completed"]).toBeGreaterThanOrEqual(2);
    expect(figures["reason.provider_error"]).toBeGreaterThanOrEqual(6);
    const ended = Object.entries(figures)
      .filter(([key]) => key.startsWith("terminal."))
      .reduce((sum, [, count]) => sum + Number(count), 0);
    expect(ended).toBe(SMOKE.size);
    // Retries happened (two attempts per failing call) and every case reached the server.
    expect(Number(figures.providerRequests)).toBeGreaterThan(SMOKE.size);
    // The trickling streams are cut by the idle timeout / the overall deadline, not by the suite.
    expect(Number(figures.maxRunWallMs)).toBeGreaterThan(Number(figures.providerDeadlineMs));
    expect(Number(figures.maxRunWallMs)).toBeLessThan(RUN_DEADLINE_MS);
    expect(figures.hangs).toBe(0);
    expect(figures.crashes).toBe(0);
    // One runtime process served every case: none was killed for a blocked event loop.
    expect(figures.runtimeProcesses).toBe(1);
    // Secrets were planted, reached the ledger redacted, and none is stored anywhere.
    expect(Number(figures.secretsPlanted)).toBeGreaterThanOrEqual(20);
    expect(Number(figures.runsWithRedactions)).toBeGreaterThanOrEqual(6);
    expect(Number(figures.rowsScanned)).toBeGreaterThan(SMOKE.size * 3);
    expect(Number(figures.walBytesWhileOpen)).toBeGreaterThan(0);
    expect(figures.secretHitsTables).toBe(0);
    expect(figures.secretHalfHits).toBe(0);
    expect(figures.secretHitsDbFile).toBe(0);
    expect(figures.secretHitsWalFile).toBe(0);
    expect(figures.secretHitsConsole).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
