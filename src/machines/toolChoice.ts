import type { CompletionContract, ProviderCapabilities, ToolChoice } from "../domain/index.js";

/** Which sampling step a choice is for: the run's first, a correction turn, or any other. */
export type SamplingPhase = "first" | "correction" | "continue";

const AUTO: ToolChoice = { mode: "auto" };

/**
 * The provider-neutral tool selection policy: only when the
 * contract names required tools, the provider supports it, and this is the first step or the
 * correction turn, force the tool — `specific` for one required tool, `required` for several.
 * Never for `none` contracts; never a tool the run does not offer.
 */
export function selectToolChoice(
  contract: CompletionContract,
  capabilities: ProviderCapabilities,
  offered: ReadonlySet<string>,
  phase: SamplingPhase,
): ToolChoice {
  if (!capabilities.toolCalling) return { mode: "none" };
  if (contract.evidenceMode === "none" || phase === "continue") return AUTO;
  const required = contract.requiredToolNames.filter((name) => offered.has(name));
  if (required.length === 0 || required.length !== contract.requiredToolNames.length) return AUTO;
  if (required.length === 1 && capabilities.toolChoice.includes("specific")) {
    return { mode: "specific", toolName: required[0]! };
  }
  return capabilities.toolChoice.includes("required") ? { mode: "required" } : AUTO;
}
