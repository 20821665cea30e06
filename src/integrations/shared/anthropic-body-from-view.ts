import { anthropicMarkerOf, type MiddlewareCallParams, type PromptPart } from './prompt-view.js';

/**
 * A Messages API body equivalent, block for block, to a prompt view: what the break detector
 * compares when a host does not hand the middleware the body it sent (LangChain). Parts of one
 * role in a row share a wire message, as the hosts send them.
 */
export function anthropicBodyFromView(view: MiddlewareCallParams, model: string): Record<string, unknown> {
  const system = view.prompt.flatMap((message) =>
    message.role === 'system' && typeof message.content === 'string'
      ? [withMarker({ type: 'text', text: message.content }, anthropicMarkerOf(message.providerOptions))]
      : [],
  );
  const tools = (view.tools ?? []).map((tool) =>
    withMarker(
      { name: tool.name, description: tool.description ?? '', input_schema: tool.inputSchema ?? {} },
      anthropicMarkerOf(tool.providerOptions),
    ),
  );
  const messages: Array<{ role: 'user' | 'assistant'; content: unknown[] }> = [];
  for (const message of view.prompt) {
    if (message.role === 'system' || typeof message.content === 'string') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = message.content.map((part) => withMarker(blockOf(part), anthropicMarkerOf(part.providerOptions)));
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  }
  return { model, max_tokens: 1, ...(system.length > 0 ? { system } : {}), ...(tools.length > 0 ? { tools } : {}), messages };
}

function blockOf(part: PromptPart): Record<string, unknown> {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text ?? '' };
    case 'reasoning':
      return { type: 'thinking', thinking: part.text ?? '', signature: '' };
    case 'tool-call':
      return { type: 'tool_use', id: part.toolCallId ?? '', name: part.toolName ?? '', input: part.input ?? {} };
    case 'tool-result':
      return {
        type: 'tool_result',
        tool_use_id: part.toolCallId ?? '',
        content: typeof part.output === 'string' ? part.output : JSON.stringify(part.output ?? null),
      };
    default:
      return { type: 'text', text: JSON.stringify(part.input ?? part) };
  }
}

function withMarker(block: Record<string, unknown>, marker: { type: string; ttl?: string } | null): Record<string, unknown> {
  return marker ? { ...block, cache_control: marker } : block;
}
