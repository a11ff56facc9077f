import type { ToolKind } from "../../domain/index.js";
import type { AnyToolDefinition } from "./Tool.js";

/** One layer of the allowlist: names to allow (absent = all), names and risk kinds to deny. */
export interface ToolPolicy {
  readonly allow?: ReadonlyArray<string>;
  readonly deny?: ReadonlyArray<string>;
  readonly denyKinds?: ReadonlyArray<ToolKind>;
}

export interface AllowlistInput {
  readonly tools: ReadonlyArray<AnyToolDefinition>;
  /** The agent profile's policy. */
  readonly profile?: ToolPolicy;
  /** The channel's policy (e.g. a public channel denies `deliver`). */
  readonly channel?: ToolPolicy;
  /** The active skill's `tools` allowlist from its manifest. */
  readonly skillTools?: ReadonlyArray<string>;
  /** Tools every run may use whatever the skill says (e.g. skill_load). */
  readonly alwaysAllowed?: ReadonlyArray<string>;
}

function permits(policy: ToolPolicy | undefined, tool: AnyToolDefinition): boolean {
  if (!policy) return true;
  if (policy.allow && !policy.allow.includes(tool.name)) return false;
  if (policy.deny?.includes(tool.name)) return false;
  return !policy.denyKinds?.includes(tool.kind);
}

/**
 * Which tools a run may see: every layer must permit a tool. A denied tool is
 * not offered to the model, and a call to it gets a `tool_not_allowed` receipt. Nothing here
 * looks at message text.
 */
export function allowedToolNames(input: AllowlistInput): string[] {
  const always = new Set(input.alwaysAllowed ?? []);
  return input.tools
    .filter(
      (tool) =>
        permits(input.profile, tool) &&
        permits(input.channel, tool) &&
        (always.has(tool.name) || !input.skillTools || input.skillTools.includes(tool.name)),
    )
    .map((tool) => tool.name);
}
