import type { ChatAssistantMessage, ChatMessage } from '../openai-chat/chat-messages.js';

/** OpenRouter's reasoning replay entries (`reasoning_details` on assistant messages). */
export type OpenRouterReasoningDetail =
  | { type: 'reasoning.text'; text: string; signature?: string; format: 'anthropic-claude-v1' }
  | { type: 'reasoning.encrypted'; data: string; format: 'anthropic-claude-v1' };

export type OpenRouterMessage = ChatMessage | (ChatAssistantMessage & { reasoning_details?: OpenRouterReasoningDetail[] });
