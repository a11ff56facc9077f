import { describe, expect, it } from "vitest";
import { parseMcpFlag, splitCommandLine } from "../../../../src/services/tools/mcp/commandLine.js";

/** Issue Q: `--mcp "<cmd>"` is split like a shell's simple command, without running a shell. */

describe("splitCommandLine", () => {
  it("splits on whitespace", () => {
    expect(splitCommandLine("  node  server.mjs --port 3 ")).toEqual(["node", "server.mjs", "--port", "3"]);
  });

  it("keeps single-quoted text as it is", () => {
    expect(splitCommandLine("echo 'a  b \\n $HOME'")).toEqual(["echo", "a  b \\n $HOME"]);
  });

  it('unescapes \\" and \\\\ inside double quotes only', () => {
    expect(splitCommandLine('run "say \\"hi\\" \\\\ \\n"')).toEqual(["run", 'say "hi" \\ \\n']);
  });

  it("keeps an empty quoted word", () => {
    expect(splitCommandLine("cmd '' x")).toEqual(["cmd", "", "x"]);
  });

  it("joins quoted and bare parts of one word", () => {
    expect(splitCommandLine("--name='my server'x")).toEqual(["--name=my serverx"]);
  });

  it("refuses an unterminated quote", () => {
    expect(() => splitCommandLine("node 'server.mjs")).toThrow("unterminated ' quote");
  });
});

describe("parseMcpFlag", () => {
  it("reads an http(s) URL as a streamable HTTP server", () => {
    expect(parseMcpFlag("http://127.0.0.1:3000/mcp")).toEqual({ url: "http://127.0.0.1:3000/mcp" });
  });

  it("reads anything else as a command and its arguments", () => {
    expect(parseMcpFlag("node test/fixtures/mcp/server.mjs --name files")).toEqual({
      command: "node",
      args: ["test/fixtures/mcp/server.mjs", "--name", "files"],
    });
  });

  it("refuses an empty flag", () => {
    expect(() => parseMcpFlag("   ")).toThrow("--mcp needs a command line or an http(s) URL");
  });
});
