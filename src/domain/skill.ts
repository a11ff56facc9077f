import { z } from "zod";
import { EvidenceMode } from "./contract.js";

/** Front matter of `skills/<name>/SKILL.md`; manifests feed the contract resolver. */
export const SkillManifest = z.object({
  name: z.string().min(1),
  description: z.string().default(""),
  evidence: EvidenceMode.optional(),
  requiredTools: z.array(z.string()).default([]),
  requiredReceiptKinds: z.array(z.string()).default([]),
  /** Tools this skill may use (an allowlist), when given. */
  tools: z.array(z.string()).optional(),
});
export type SkillManifest = z.infer<typeof SkillManifest>;
