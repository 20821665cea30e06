import { describe, expect, it } from 'vitest';
import type { ThinkingConfig } from '../../model/request.js';
import { assemble } from '../../session/assemble.js';
import { fixtureSession } from '../anthropic/test-support/fixtures.js';
import { convertToOpenRouter } from './convert-request.js';

function body(model: string, thinking?: ThinkingConfig) {
  const session = fixtureSession({ model, ...(thinking ? { params: { thinking } } : {}) });
  session.appendUserText('Plan the migration.');
  return convertToOpenRouter(assemble(session)).body;
}

describe('convertToOpenRouter: the session’s thinking setting', () => {
  it('goes as OpenRouter’s reasoning parameter (it was dropped: a model that reasons by default kept reasoning)', () => {
    expect(body('deepseek/deepseek-v4-flash', { type: 'disabled' }).reasoning).toEqual({ enabled: false });
    expect(body('anthropic/claude-sonnet-4.5', { type: 'enabled', budgetTokens: 4_096 }).reasoning).toEqual({
      max_tokens: 4_096,
    });
    expect(body('anthropic/claude-opus-4.6', { type: 'adaptive' }).reasoning).toEqual({ enabled: true });
  });

  it('sends no reasoning field when the session says nothing about thinking', () => {
    expect(body('anthropic/claude-sonnet-4.5')).not.toHaveProperty('reasoning');
  });
});
