import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { CliIO } from "../../src/cli/output.js";
import { serveCommand } from "../../src/cli/serveImpl.js";

/**
 * `agentloop serve` as the real binary (compiled JS, plain node) in a child process, on the
 * ledger `npm start` writes (`agentloop eval --report agentloop-report` in its working folder:
 * ./agentloop.db), and its refusals in-process.
 */

const BIN = fileURLToPath(new URL("../../bin/agentloop.mjs", import.meta.url));
const run = promisify(execFile);

let dir: string;
let ledger: string;
let caseCount: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentloop-serve-cli-"));
  // What `npm start` runs, in a folder of its own: the ledger is the default ./agentloop.db.
  const { stdout } = await run(process.execPath, [BIN, "eval", "--report", "agentloop-report"], { cwd: dir });
  caseCount = Number(/^(\d+)\/\d+ cases/m.exec(stdout)?.[1]);
  ledger = join(dir, "agentloop.db");
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function capture(): CliIO & { readonly lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => lines.push(line), err: (line) => lines.push(line), isTTY: false };
}

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** Starts `agentloop serve` in `cwd` and resolves its URL once it listens. */
function startServe(cwd: string, args: ReadonlyArray<string>) {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", ...args], { cwd, stdio: "pipe" });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 20_000);
    child.stdout.on("data", () => {
      const match = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on("close", () => reject(new Error(`serve exited: ${stderr}`)));
  });
  return { child: child as ChildProcess, url, closed, output: () => ({ stdout, stderr }) };
}

describe("agentloop serve", () => {
  it("serves the ledger npm start wrote and leaves the file as it was", async () => {
    const before = { sha: sha256(ledger), mtime: statSync(ledger).mtimeMs };
    expect(existsSync(`${ledger}-wal`) || existsSync(`${ledger}-shm`)).toBe(false);
    const serve = startServe(dir, []);
    const url = await serve.url;
    const runs = (await (await fetch(`${url}/api/runs?limit=1000`)).json()) as Array<{ runId: string; state: string }>;
    expect(caseCount).toBeGreaterThan(100);
    expect(runs.length).toBe(caseCount);
    const page = await (await fetch(`${url}/`)).text();
    expect(page).toContain("<title>agentloop runs</title>");
    const detail = await (await fetch(`${url}/runs/${runs[0]!.runId}`)).text();
    expect(detail).toContain('data-testid="chart"');
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
    serve.child.kill("SIGINT");
    expect(await serve.closed).toBe(130);
    expect(serve.output().stderr).toBe("");
    expect(sha256(ledger)).toBe(before.sha);
    expect(statSync(ledger).mtimeMs).toBe(before.mtime);
    expect(existsSync(`${ledger}-wal`)).toBe(false);
    expect(existsSync(`${ledger}-shm`)).toBe(false);
  }, 60_000);

  it("stops on SIGTERM as well", async () => {
    const serve = startServe(dir, ["--db", ledger]);
    await serve.url;
    serve.child.kill("SIGTERM");
    expect(await serve.closed).toBe(143);
    expect(existsSync(`${ledger}-wal`)).toBe(false);
  }, 30_000);

  it.each([
    [["--port", "http"], 'agentloop: --port must be a whole number from 0 to 65535 (got "http")'],
    [["--port", "70000"], 'agentloop: --port must be a whole number from 0 to 65535 (got "70000")'],
    [["--poll", "0"], 'agentloop: --poll must be a whole number from 50 to 60000 (got "0")'],
    [["--bogus"], "agentloop: unknown option '--bogus'"],
  ])("refuses %j with one line and exit code 2", async (args, line) => {
    const io = capture();
    expect(await main(["serve", "--db", ledger, ...args], io)).toBe(2);
    expect(io.lines).toEqual([line]);
  });

  it("refuses a missing ledger with one line, before it listens", async () => {
    const io = capture();
    const missing = join(dir, "nothing.db");
    expect(await main(["serve", "--db", missing, "--port", "0"], io)).toBe(1);
    expect(io.lines).toEqual([`agentloop: no ledger database at ${missing}`]);
    expect(existsSync(missing)).toBe(false);
  });

  it("refuses a file that is not a ledger with one line", async () => {
    const io = capture();
    const notes = join(dir, "notes.txt");
    writeFileSync(notes, "not a database\n");
    expect(await main(["serve", "--db", notes, "--port", "0"], io)).toBe(1);
    expect(io.lines).toEqual([`agentloop: ${notes} is not a SQLite database`]);
  });

  it("warns when bound beyond loopback, and stops on its signal with exit code 0", async () => {
    const io = capture();
    const stop = new AbortController();
    const served = serveCommand(io, { db: ledger, port: "0", host: "0.0.0.0", poll: "300" }, stop.signal);
    const deadline = Date.now() + 10_000;
    while (io.lines.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    expect(await served).toBe(0);
    expect(io.lines[1]).toBe(
      "agentloop serve: warning: bound to 0.0.0.0, so anyone who can reach it can read the ledger",
    );
    expect(io.lines.at(-1)).toBe("agentloop serve: stopped");
  });

  it("says so in one line when the port is in use", async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const io = capture();
      expect(await main(["serve", "--db", ledger, "--port", String(port)], io)).toBe(1);
      expect(io.lines).toEqual([`agentloop: port ${port} on 127.0.0.1 is in use (choose another with --port)`]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
