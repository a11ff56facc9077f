/** `agentloop/tools`: defining tools, the built-in workspace tools, MCP servers as tool sources, and allowlists. */
export { allowedToolNames } from "../services/tools/allowlist.js";
export {
  BUILTIN_TOOL_NAMES,
  type BuiltinToolName,
  type BuiltinToolOptions,
  builtinTools,
  type MessageSender,
} from "../services/tools/builtin/index.js";
export {
  type McpPartlyCheckedTool,
  type McpRefusedTool,
  type McpServerAddress,
  type McpServerFacts,
  McpToolsError,
  type McpToolset,
  type McpToolsOptions,
  type McpToolsSettings,
  mcpTools,
} from "../services/tools/mcp/mcpTools.js";
export {
  type AnyToolDefinition,
  defineTool,
  describeTool,
  type JsonSchemaInput,
  jsonSchemaInput,
  type StandardSchemaV1,
  type ToolContext,
  type ToolDefinition,
  type ToolExecution,
  type ToolInputSchema,
  type ToolOutput,
  type ToolResult,
} from "../services/tools/Tool.js";
