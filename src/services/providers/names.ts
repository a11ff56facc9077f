/**
 * The real providers a process can talk to, by name. In a module of its own (no imports), so the
 * CLI can offer them as `--provider` choices without loading the provider SDKs; config.ts
 * re-exports them.
 */
export const PROVIDER_NAMES = ["openai-chat", "openai-responses", "anthropic"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
