import { describe, expect, it } from "vitest";
import { agentloopToolNames, sanitizeNamePart } from "../../../../src/services/tools/mcp/naming.js";

/** Issue Q: MCP tools are offered as `<server>__<tool>` in the charset providers accept. */

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

describe("agentloopToolNames", () => {
  it("prefixes each tool with the server name and two underscores", () => {
    expect([...agentloopToolNames("files", ["read", "write"]).values()]).toEqual(["files__read", "files__write"]);
  });

  it("replaces characters outside [a-zA-Z0-9_-] with underscores", () => {
    expect(agentloopToolNames("my server.v2", ["weird.name/with spaces"]).get("weird.name/with spaces")).toBe(
      "my_server_v2__weird_name_with_spaces",
    );
  });

  it("keeps a name that is too long within 64 characters, ending in a hash of the MCP name", () => {
    const long = "x".repeat(100);
    const name = agentloopToolNames("srv", [long]).get(long)!;
    expect(name).toMatch(VALID);
    expect(name).toMatch(/^srv__x+_[0-9a-f]{8}$/);
  });

  it("gives two tools that sanitise alike different names", () => {
    const names = agentloopToolNames("srv", ["a.b", "a/b"]);
    expect(names.get("a.b")).toBe("srv__a_b");
    expect(names.get("a/b")).toMatch(/^srv__a_b_[0-9a-f]{8}$/);
  });

  it("gives the same names on every connection", () => {
    expect([...agentloopToolNames("srv", ["a.b", "a/b"])]).toEqual([...agentloopToolNames("srv", ["a.b", "a/b"])]);
  });

  it("names an empty part mcp", () => {
    expect(sanitizeNamePart("")).toBe("mcp");
  });
});
