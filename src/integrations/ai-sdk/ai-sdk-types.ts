import type { ModelMessage, SystemModelMessage, ToolChoice, ToolSet } from 'ai';

/** The AI SDK's per-provider options record (`{ anthropic: {...}, openai: {...} }`). */
export type AiSdkProviderOptions = NonNullable<SystemModelMessage['providerOptions']>;

/**
 * Call options for `generateText` / `streamText`, built from a Cachet request. Spread it into the
 * call and add `model` (and `execute` functions on the tools, if the AI SDK should run them).
 */
export interface AiSdkCall {
  system?: SystemModelMessage[];
  messages: ModelMessage[];
  tools?: ToolSet;
  toolChoice?: ToolChoice<ToolSet>;
  providerOptions: AiSdkProviderOptions;
  maxOutputTokens: number;
  stopSequences?: string[];
  /**
   * `true` when a system message sits inside `messages` on purpose (Cachet's turn tail as a
   * trailing system/developer message in an OpenAI tool loop), which silences the AI SDK warning.
   */
  allowSystemInMessages?: boolean;
}
