/** `agentloop/providers`: real model providers through the official SDKs. */
export { type AnthropicConfig, anthropicProvider } from "../services/providers/anthropic.js";
export {
  makeProvider,
  PROVIDER_NAMES,
  type ProviderName,
  type ProviderSelection,
  type ResolvedProviderConfig,
  resolveProviderConfig,
} from "../services/providers/config.js";
export {
  defineProvider,
  type ProviderDefinition,
  type ProviderReply,
} from "../services/providers/defineProvider.js";
export { type OpenAIChatConfig, openAIChatProvider } from "../services/providers/openaiChat.js";
export { type OpenAIResponsesConfig, openAIResponsesProvider } from "../services/providers/openaiResponses.js";
export {
  type Provider,
  ProviderError,
  type ProviderErrorReason,
  type ProviderRequest,
} from "../services/providers/Provider.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../services/providers/retry.js";
