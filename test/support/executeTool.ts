import { Effect } from "effect";
import { invokeTool } from "../../src/services/tools/invokeTool.js";
import type { AnyToolDefinition, ToolContext, ToolResult } from "../../src/services/tools/Tool.js";

const defaultContext = (): ToolContext => ({
  runId: "run-1",
  callId: "call-1",
  step: 1,
  signal: new AbortController().signal,
});

/** Runs a tool's executor as the runtime does (arguments validated first); refused arguments are a defect. */
export const runTool = (
  tool: AnyToolDefinition,
  args: unknown,
  context: Partial<ToolContext> = {},
): Effect.Effect<ToolResult, unknown> =>
  Effect.suspend(() => invokeTool(tool, args, { ...defaultContext(), ...context })).pipe(
    Effect.flatMap((invocation) =>
      invocation.kind === "invalid_arguments"
        ? Effect.dieMessage(`invalid arguments: ${invocation.problem}`)
        : Effect.succeed(invocation.result),
    ),
  );

/** `runTool` for the tests whose tools are Promise executors (MCP); refused arguments throw. */
export async function executeTool(
  tool: AnyToolDefinition,
  args: unknown,
  context: Partial<ToolContext> = {},
): Promise<ToolResult> {
  const invocation = await Effect.runPromise(invokeTool(tool, args, { ...defaultContext(), ...context }));
  if (invocation.kind === "invalid_arguments") throw new Error(`invalid arguments: ${invocation.problem}`);
  return invocation.result;
}
