import { describe, expect, it } from 'vitest';
import { anthropicTurn } from '../test-support/sessions.js';
import { planCacheFields } from './plan-cache-fields.js';

describe('planCacheFields', () => {
  it("leaves the client's body untouched and changes only cache fields in the planned one", () => {
    const body = anthropicTurn(3, { marked: true }) as unknown as Record<string, unknown>;
    (body.messages as Array<Record<string, unknown>>)[1]!.content = 'a string answer';
    const before = structuredClone(body);
    const planned = planCacheFields('anthropic', body, {
      conversationId: 'c1',
      previousResponseId: 'msg_1',
      previousBreakpointPosition: null,
    });
    expect(body).toEqual(before);
    expect(planned.body).not.toBe(body);
    const withoutCacheFields = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value, (key, entry) => (key === 'cache_control' || key === 'diagnostics' ? undefined : entry)));
    const planView = withoutCacheFields(planned.body) as { messages: Array<{ content: unknown }> };
    // The string content became one text block: the same tokens, now markable.
    expect(planView.messages[1]!.content).toEqual([{ type: 'text', text: 'a string answer' }]);
    planView.messages[1]!.content = 'a string answer';
    expect(planView).toEqual(withoutCacheFields(before));
    expect(planned.breakpoints).toEqual(['tools[0]', 'system[0]', 'messages[4].content[0]']);
    expect(planned.body.diagnostics).toEqual({ previous_message_id: 'msg_1' });
  });
});
