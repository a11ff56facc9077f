import { Command, CommanderError } from "commander";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliFailure, type CliIO, firstLine } from "../../src/cli/output.js";
import { type RunCommandOptions, registerRunCommand, runCommand } from "../../src/cli/runCommand.js";
import { openAIChatWire, startOpenAIChatServer } from "../support/fakeServers/openaiChat.js";
import type { FakeServer } from "../support/fakeServers/shared.js";
import { FAST_RETRY } from "../support/runtimeHarness.js";
import { useTempDir } from "../support/tempDir.js";

/** `agentloop run` in-process, against the fake Chat Completions server. */

const tmp = useTempDir("agentloop-run-cli-");

function fakeIO() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (line) => out.push(line), err: (line) => err.push(line), isTTY: false };
  return { io, out, err };
}

describe("runCommand", () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await startOpenAIChatServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const options = (overrides: Partial<RunCommandOptions> = {}): RunCommandOptions => ({
    provider: "openai-chat",
    baseUrl: `${server.origin}/v1`,
    db: tmp.path("ledger.db"),
    env: { OPENAI_API_KEY: "test-key" },
    retry: FAST_RETRY,
    ...overrides,
  });

  it("prints the final text and exits 0 for a completed run", async () => {
    server.enqueue(openAIChatWire.stream({ text: ["Paris is ", "the capital."] }));
    const { io, out, err } = fakeIO();
    expect(await runCommand(io, "Capital of France?", options())).toBe(0);
    expect(out).toEqual(["Paris is the capital."]);
    expect(err).toEqual([]);
  });

  it("prints the AgentRunResult with --json", async () => {
    server.enqueue(openAIChatWire.stream({ text: "Paris." }));
    const { io, out } = fakeIO();
    await runCommand(io, "Capital of France?", options({ json: true }));
    const result = JSON.parse(out.join("\n"));
    expect(result).toMatchObject({ terminalState: "completed", finalText: "Paris.", steps: 1, receipts: [] });
  });

  it("exits 1 and prints the runtime's honest statement for a run that does not complete", async () => {
    server.enqueue(openAIChatWire.stream({ text: "Paris is the cap", finish: "length" }));
    const { io, out } = fakeIO();
    expect(await runCommand(io, "Capital of France?", options({ json: true }))).toBe(1);
    expect(JSON.parse(out.join("\n"))).toMatchObject({
      terminalState: "incomplete",
      terminalReason: "incomplete_turn",
    });
  });

  it("offers no tools under an evidence contract and ends unverified with exit 1", async () => {
    server.enqueue(openAIChatWire.stream({ text: "I looked it up." }), openAIChatWire.stream({ text: "I looked." }));
    const { io, out } = fakeIO();
    expect(await runCommand(io, "Look it up.", options({ contract: "observe", json: true }))).toBe(1);
    expect(JSON.parse(out.join("\n")).terminalState).toBe("unverified");
    expect(server.requests.every((recorded) => recorded.body.tools === undefined)).toBe(true);
  });

  it("acts on --workspace with the built-in tools and continues a --session from the ledger", async () => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const workspace = tmp.path("ws");
    mkdirSync(workspace, { recursive: true });
    writeFileSync(`${workspace}/config.yaml`, "debug: true\n");
    writeFileSync(`${workspace}/AGENTS.md`, "Prefer reading files.\n");
    server.enqueue(
      openAIChatWire.stream({ calls: [{ id: "c1", name: "workspace_read", arguments: '{"path":"config.yaml"}' }] }),
      openAIChatWire.stream({ text: "debug is true." }),
    );
    const first = fakeIO();
    expect(
      await runCommand(
        first.io,
        "Is debug on?",
        options({ workspace, session: "s-cli", contract: "observe", json: true }),
      ),
    ).toBe(0);
    expect(JSON.parse(first.out.join("\n"))).toMatchObject({
      terminalState: "completed",
      receipts: [{ toolName: "workspace_read", status: "ok" }],
    });
    const system = server.requests[0]!.body.messages[0];
    expect(JSON.stringify(system)).toContain("Prefer reading files.");
    server.enqueue(openAIChatWire.stream({ text: "Yes, as read before." }));
    const second = fakeIO();
    expect(await runCommand(second.io, "And again?", options({ workspace, session: "s-cli" }))).toBe(0);
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain("debug: true");
  });

  it("delivers through the console channel with --policy", async () => {
    server.enqueue(openAIChatWire.stream({ text: "Paris." }));
    const { io, out } = fakeIO();
    const written: string[] = [];
    // The console channel waits for each write's callback: the stand-in must call it.
    const spy = vi.spyOn(process.stdout, "write").mockImplementation(((
      chunk: string | Uint8Array,
      ...rest: unknown[]
    ) => {
      written.push(String(chunk));
      const callback = rest.find((arg): arg is () => void => typeof arg === "function");
      callback?.();
      return true;
    }) as typeof process.stdout.write);
    try {
      expect(await runCommand(io, "Capital?", options({ policy: "final_only" }))).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(out).toEqual([]);
    expect(written.join("")).toContain("Paris.");
  });

  /** Runs with a terminal attached, returning what went to stderr and to stdout. */
  async function atTerminal(policy: string | undefined) {
    const { io } = fakeIO();
    const terminal: CliIO = { ...io, isTTY: true };
    const written: Record<"stderr" | "stdout", string[]> = { stderr: [], stdout: [] };
    const spies = (["stderr", "stdout"] as const).map((stream) =>
      vi.spyOn(process[stream], "write").mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
        written[stream].push(String(chunk));
        rest.find((arg): arg is () => void => typeof arg === "function")?.();
        return true;
      }) as typeof process.stdout.write),
    );
    try {
      await runCommand(terminal, "Capital?", options(policy ? { policy } : {}));
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    return { stderr: written.stderr.join(""), stdout: written.stdout.join("") };
  }

  it("streams the text to a terminal as it comes", async () => {
    server.enqueue(openAIChatWire.stream({ text: ["Paris is ", "the capital."] }));
    const { stderr } = await atTerminal(undefined);
    expect(stderr).toContain("Paris is the capital.");
  });

  it("streams nothing under --policy progress_updates, whose router shows each step's text once", async () => {
    server.enqueue(openAIChatWire.stream({ text: ["Paris is ", "the capital."] }));
    const { stderr, stdout } = await atTerminal("progress_updates");
    expect(stderr).not.toContain("Paris is");
    expect(stdout.split("Paris is the capital.").length - 1).toBe(1);
  });

  it("asks for whole responses with --no-stream", async () => {
    server.enqueue(openAIChatWire.json({ text: "Paris." }));
    const { io, out } = fakeIO();
    expect(await runCommand(io, "Capital?", options({ stream: false }))).toBe(0);
    expect(out).toEqual(["Paris."]);
    expect(server.requests[0]!.body.stream).not.toBe(true);
  });

  it("fails with exit code 2 and a line naming the variable when the key is missing", async () => {
    const { io } = fakeIO();
    const failure = await runCommand(io, "Hi", options({ provider: "anthropic", env: {} })).catch((error) => error);
    expect(failure).toBeInstanceOf(CliFailure);
    expect(failure).toMatchObject({
      exitCode: 2,
      message: "ANTHROPIC_API_KEY is not set: the anthropic provider needs an API key",
    });
  });

  it("fails with exit code 2 for an unknown provider", async () => {
    const { io } = fakeIO();
    const failure = await runCommand(io, "Hi", options({ provider: "gemini" })).catch((error) => error);
    expect(failure).toMatchObject({ exitCode: 2, message: expect.stringContaining('unknown provider "gemini"') });
  });

  it("fails with exit code 2 for an unknown contract", async () => {
    const { io } = fakeIO();
    const failure = await runCommand(io, "Hi", options({ contract: "strict" })).catch((error) => error);
    expect(failure).toMatchObject({ exitCode: 2, message: expect.stringContaining('unknown contract "strict"') });
  });
});

describe("registerRunCommand", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  /** A program wired like src/cli/main.ts: one-line errors, exit codes from the action or the failure. */
  async function cli(argv: string[]) {
    const { io, out, err } = fakeIO();
    let code = 0;
    const program = new Command("agentloop").exitOverride().configureOutput({
      writeOut: (text) => io.out(text.trimEnd()),
      writeErr: (text) => io.err(text.trimEnd()),
    });
    registerRunCommand(program, io, (exit) => {
      code = exit;
    });
    try {
      await program.parseAsync(argv, { from: "user" });
    } catch (error) {
      if (error instanceof CliFailure) {
        io.err(`agentloop: ${firstLine(error.message)}`);
        code = error.exitCode;
      } else if (error instanceof CommanderError) {
        code = error.exitCode === 0 ? 0 : 2;
      } else throw error;
    }
    return { code, out, err };
  }

  it("prints one error line naming the missing environment variable and exits 2", async () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    const { code, err, out } = await cli(["run", "Hi", "--provider", "openai-chat", "--db", tmp.path("l.db")]);
    expect(code).toBe(2);
    expect(err).toEqual(["agentloop: OPENAI_API_KEY is not set: the openai-chat provider needs an API key"]);
    expect(out).toEqual([]);
  });

  it("refuses a provider name outside the choices as a usage error", async () => {
    const { code, err } = await cli(["run", "Hi", "--provider", "gemini"]);
    expect(code).toBe(2);
    expect(err.join("\n")).toContain("gemini");
  });
});
