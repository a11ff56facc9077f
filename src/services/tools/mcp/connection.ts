import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** How to reach one MCP server: a child process over stdio, or a streamable HTTP endpoint. */
export type McpServerAddress =
  | {
      readonly command: string;
      readonly args?: ReadonlyArray<string> | undefined;
      /** Added to the SDK's safe default environment (PATH, HOME …), not to all of process.env. */
      readonly env?: Readonly<Record<string, string>> | undefined;
      readonly cwd?: string | undefined;
      /** The server's stderr: shown (default), dropped, or ignored. */
      readonly stderr?: "inherit" | "ignore" | undefined;
    }
  | {
      readonly url: string | URL;
      readonly headers?: Readonly<Record<string, string>> | undefined;
    };

/** The `_meta` key that tags each `tools/call` request so its JSON-RPC id can be read off the wire. */
export const INVOCATION_META_KEY = "agentloop/invocation";

export interface McpConnection {
  readonly client: Client;
  readonly transportName: "stdio" | "streamable-http";
  /** The stdio child's pid (null for HTTP or once it has exited). */
  readonly pid: () => number | null;
  /** The protocol version the server agreed to in `initialize`. */
  readonly protocolVersion: () => string | null;
  /** The JSON-RPC id the request tagged with `invocation` went out with (then forgotten). */
  readonly takeRequestId: (invocation: string) => string | number | null;
  /**
   * Calls `listener` with that id as soon as the request goes out (before any answer), so a call
   * that times out or is cancelled still knows which request it was. Forgotten with the id.
   */
  readonly onRequestId: (invocation: string, listener: (id: string | number) => void) => void;
  /** Why the connection is gone (the server exited, the host closed it), or undefined while open. */
  readonly closedBecause: () => string | undefined;
  readonly close: () => Promise<void>;
}

function invocationOf(message: JSONRPCMessage): string | undefined {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message)) return undefined;
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const tag = meta?.[INVOCATION_META_KEY];
  return typeof tag === "string" ? tag : undefined;
}

/**
 * Watches what the client sends: the id of every tagged `tools/call` (the SDK numbers requests
 * itself and does not say which number it used), and the negotiated protocol version, which the
 * SDK hands only to transports that ask for it (HTTP ones); a stdio transport is given the hook too.
 */
function observe(transport: Transport) {
  const requestIds = new Map<string, string | number>();
  const listeners = new Map<string, (id: string | number) => void>();
  let protocolVersion: string | null = null;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const invocation = invocationOf(message);
    if (invocation !== undefined && "id" in message && message.id !== undefined) {
      requestIds.set(invocation, message.id);
      listeners.get(invocation)?.(message.id);
    }
    return send(message, options);
  };
  const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version: string) => {
    protocolVersion = version;
    setProtocolVersion?.(version);
  };
  return {
    protocolVersion: () => protocolVersion,
    takeRequestId: (invocation: string) => {
      const id = requestIds.get(invocation);
      requestIds.delete(invocation);
      listeners.delete(invocation);
      return id ?? null;
    },
    onRequestId: (invocation: string, listener: (id: string | number) => void) => {
      listeners.set(invocation, listener);
    },
  };
}

/** Stdio children still running; one `exit` listener kills them all (a listener each would pile up). */
const runningChildren = new Set<StdioClientTransport>();

function killRunningChildren(): void {
  for (const transport of runningChildren) {
    const pid = transport.pid;
    if (pid === null) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** A stdio child must not outlive this process, even when it exits without closing the connection. */
function killOnExit(transport: StdioClientTransport): () => void {
  if (runningChildren.size === 0) process.on("exit", killRunningChildren);
  runningChildren.add(transport);
  return () => {
    runningChildren.delete(transport);
    if (runningChildren.size === 0) process.off("exit", killRunningChildren);
  };
}

/** The SDK's client side, loaded on first connect: importing agentloop/tools should not cost ~100 ms of MCP. */
const loadSdk = async () => {
  const [client, stdio, http] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
  };
};

export async function connect(
  address: McpServerAddress,
  clientInfo: { readonly name: string; readonly version: string },
  connectTimeoutMs: number,
): Promise<McpConnection> {
  const { Client, StdioClientTransport, StreamableHTTPClientTransport } = await loadSdk();
  const client = new Client({ name: clientInfo.name, version: clientInfo.version });
  let closedBecause: string | undefined;
  let forgetExitHook = () => {};
  let transport: Transport;
  let terminateSession: () => Promise<void> = async () => {};
  let pid: () => number | null = () => null;
  if ("command" in address) {
    const stdio = new StdioClientTransport({
      command: address.command,
      args: [...(address.args ?? [])],
      ...(address.env ? { env: { ...address.env } } : {}),
      ...(address.cwd ? { cwd: address.cwd } : {}),
      stderr: address.stderr ?? "inherit",
    });
    forgetExitHook = killOnExit(stdio);
    pid = () => stdio.pid;
    transport = stdio;
  } else {
    const http = new StreamableHTTPClientTransport(new URL(address.url), {
      ...(address.headers ? { requestInit: { headers: { ...address.headers } } } : {}),
    });
    terminateSession = () => http.terminateSession();
    transport = http;
  }
  const watched = observe(transport);
  client.onclose = () => {
    closedBecause ??= "the MCP server closed the connection (it exited or was stopped)";
    forgetExitHook();
  };
  // Transport errors also reject the request they belong to; without a handler the SDK would log them.
  client.onerror = () => {};
  try {
    await client.connect(transport, { timeout: connectTimeoutMs });
  } catch (error) {
    forgetExitHook();
    await transport.close().catch(() => {});
    throw error;
  }
  return {
    client,
    transportName: "command" in address ? "stdio" : "streamable-http",
    pid,
    protocolVersion: watched.protocolVersion,
    takeRequestId: watched.takeRequestId,
    onRequestId: watched.onRequestId,
    closedBecause: () => closedBecause,
    close: async () => {
      closedBecause ??= "the MCP connection was closed by the host";
      await terminateSession().catch(() => {});
      await client.close().catch(() => {});
      forgetExitHook();
    },
  };
}
