import { z } from "zod";

/** What kind of evidence a run must produce before it may end `completed`. */
export const EvidenceMode = z.enum(["none", "observe", "mutate", "deliver"]);
export type EvidenceMode = z.infer<typeof EvidenceMode>;

/** Where a contract came from: deterministic signals only, never keywords in the user's text. */
export const ContractSource = z.enum(["caller", "command", "skill", "job_type", "delivery_request", "default"]);
export type ContractSource = z.infer<typeof ContractSource>;

export const CompletionContract = z.strictObject({
  evidenceMode: EvidenceMode,
  requiredToolNames: z.array(z.string().min(1)).default([]),
  requiredReceiptKinds: z.array(z.string().min(1)).default([]),
  allowUnverifiedAnswer: z.boolean().default(true),
  source: ContractSource.default("default"),
});
export type CompletionContract = z.infer<typeof CompletionContract>;
export type CompletionContractInput = z.input<typeof CompletionContract>;

export const NONE_CONTRACT: CompletionContract = CompletionContract.parse({ evidenceMode: "none" });
