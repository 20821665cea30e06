import { describe, expect, it } from 'vitest';
import type { AdapterWarning } from '../../model/adapter-warning.js';
import type { Message } from '../../model/content.js';
import { tailNeedsUserMessage } from './tail-user-message.js';

const user: Message = { role: 'user', content: [{ type: 'text', text: 'hi' }] };
const assistant: Message = { role: 'assistant', content: [{ type: 'text', text: 'hello' }] };

describe('tailNeedsUserMessage', () => {
  it('is false when the request ends with a user message or there is no tail', () => {
    const warnings: AdapterWarning[] = [];
    expect(tailNeedsUserMessage([user], 2, warnings)).toBe(false);
    expect(tailNeedsUserMessage([user, assistant], 0, warnings)).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('is true and warns when an assistant message ends the request', () => {
    const warnings: AdapterWarning[] = [];
    expect(tailNeedsUserMessage([user, assistant], 1, warnings)).toBe(true);
    expect(warnings.map((warning) => warning.code)).toEqual(['tail-as-user-message']);
  });

  it('is true without a warning when there are no messages at all', () => {
    const warnings: AdapterWarning[] = [];
    expect(tailNeedsUserMessage([], 1, warnings)).toBe(true);
    expect(warnings).toEqual([]);
  });
});
