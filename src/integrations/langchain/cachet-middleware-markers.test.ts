import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { validateAnthropicBody } from '../../gateway/emulate/validate-anthropic-body.js';
import { countMarkers } from '../test-support/coding-agent-server.js';
import { type CachetLangChainOptions, cachetMiddleware } from './cachet-middleware.js';
import { recordedChatAnthropic } from './test-support/recorded-chat-anthropic.js';

const LONG = 'Context paragraph that is long enough to be worth caching. '.repeat(120);

async function sendOnce(messages: HumanMessage[], options: CachetLangChainOptions, systemPrompt?: SystemMessage) {
  const { recorder, model } = recordedChatAnthropic();
  const agent = createAgent({
    model,
    tools: [],
    middleware: [cachetMiddleware(options)],
    ...(systemPrompt ? { systemPrompt } : {}),
  });
  await agent.invoke({ messages });
  return recorder.bodies;
}

const marked = (count: number) =>
  Array.from({ length: count }, (_unused, index) => ({
    type: 'text' as const,
    text: `${index}: ${LONG}`,
    cache_control: { type: 'ephemeral' as const },
  }));

describe('cachetMiddleware for LangChain: never more than four cache_control markers', () => {
  for (const existingMarkers of ['replace', 'keep'] as const) {
    it(`a human message carrying 8 markers leaves with at most four (existingMarkers: ${existingMarkers})`, async () => {
      const bodies = await sendOnce([new HumanMessage({ content: marked(8) })], { existingMarkers });
      expect(bodies).toHaveLength(1);
      expect(countMarkers(bodies[0])).toBeGreaterThan(0);
      expect(countMarkers(bodies[0])).toBeLessThanOrEqual(4);
      expect(validateAnthropicBody(bodies[0])).toBeNull();
    });

    it(`markers on system blocks and across messages are capped too (existingMarkers: ${existingMarkers})`, async () => {
      const system = new SystemMessage({ content: marked(3) });
      const bodies = await sendOnce(
        [new HumanMessage({ content: marked(3) }), new HumanMessage({ content: marked(3) })],
        { existingMarkers },
        system,
      );
      expect(countMarkers(bodies[0])).toBeLessThanOrEqual(4);
      expect(validateAnthropicBody(bodies[0])).toBeNull();
    });
  }

  it('with replace, the caller markers are gone and the plan places its own', async () => {
    const bodies = await sendOnce([new HumanMessage({ content: marked(8) })], { existingMarkers: 'replace' });
    const content = (bodies[0]!.messages as Array<{ content: Array<Record<string, unknown>> }>)[0]!.content;
    // The plan marks the end of the history; the seven earlier caller markers are removed.
    expect(content.slice(0, 7).every((block) => block.cache_control === undefined)).toBe(true);
    expect(content[7]!.cache_control).toEqual({ type: 'ephemeral' });
  });
});
