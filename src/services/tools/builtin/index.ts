import { skillLoadTool } from "../../workspace/skills.js";
import type { AnyToolDefinition } from "../Tool.js";
import { type RunCommandOptions, runCommandTool } from "./runCommand.js";
import { type MessageSender, sendMessageTool } from "./sendMessage.js";
import { workspaceListTool, workspaceReadTool, workspaceWriteTool } from "./workspaceFiles.js";

export const BUILTIN_TOOL_NAMES = [
  "workspace_read",
  "workspace_list",
  "workspace_write",
  "run_command",
  "send_message",
  "skill_load",
] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

export interface BuiltinToolOptions {
  readonly senders?: ReadonlyArray<MessageSender>;
  readonly runCommand?: RunCommandOptions;
}

/** The built-in tools for one workspace, by name. */
export function builtinTools(
  workspace: string,
  options: BuiltinToolOptions = {},
): Map<BuiltinToolName, AnyToolDefinition> {
  return new Map<BuiltinToolName, AnyToolDefinition>([
    ["workspace_read", workspaceReadTool(workspace)],
    ["workspace_list", workspaceListTool(workspace)],
    ["workspace_write", workspaceWriteTool(workspace)],
    ["run_command", runCommandTool(workspace, options.runCommand)],
    ["send_message", sendMessageTool(options.senders ?? [])],
    ["skill_load", skillLoadTool(workspace)],
  ]);
}

export type { MessageSender } from "./sendMessage.js";
