import { describe, expect, it } from 'vitest';
import { diffWireBodies } from '../break/diff-wire-bodies.js';
import { routedAnthropicKeyParams, valueAtPath } from './cache-key-params.js';

const system = [{ type: 'text', text: 'You review code. '.repeat(200), cache_control: { type: 'ephemeral' } }];
const messages = [
  { role: 'user', content: [{ type: 'text', text: 'Read src/a.ts. '.repeat(100), cache_control: { type: 'ephemeral' } }] },
  { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
  { role: 'user', content: [{ type: 'text', text: 'Next.' }] },
];

function anthropicBody(model: string, outputConfig: Record<string, unknown>) {
  return { model, max_tokens: 1024, system, messages, output_config: outputConfig };
}

describe('cache-key parameters per model', () => {
  it('does not call an effort change a params-changed miss on a Claude 5 model', () => {
    const report = diffWireBodies(
      anthropicBody('claude-opus-5-5', { effort: 'high' }),
      anthropicBody('claude-opus-5-5', { effort: 'low' }),
    );
    expect(report.cause).toBeNull();
  });

  it('still calls it params-changed on Claude 4.x, where no source takes effort out of the key', () => {
    const report = diffWireBodies(
      anthropicBody('claude-opus-4-8', { effort: 'high' }),
      anthropicBody('claude-opus-4-8', { effort: 'low' }),
    );
    expect(report.cause).toBe('params-changed');
    expect(report.firstDivergence?.path).toBe('output_config');
  });

  it('keeps a structured-output change a miss on Claude 5 (output_config.format is in the key)', () => {
    const report = diffWireBodies(
      anthropicBody('claude-sonnet-5-5', { effort: 'high' }),
      anthropicBody('claude-sonnet-5-5', { effort: 'high', format: { type: 'json_schema', schema: {} } }),
    );
    expect(report.cause).toBe('params-changed');
    expect(report.firstDivergence?.path).toBe('output_config.format');
  });

  it('drops OpenRouter reasoning.effort from the key only where the Claude row does', () => {
    const body = { tool_choice: 'auto', reasoning: { effort: 'low', max_tokens: 2000 } };
    expect(routedAnthropicKeyParams(body, 'claude-opus-5-5')).toEqual([
      ['tool_choice', 'auto'],
      ['reasoning', { max_tokens: 2000 }],
    ]);
    expect(routedAnthropicKeyParams(body, 'claude-opus-4-8')[1]).toEqual(['reasoning', body.reasoning]);
  });

  it('reads dotted paths and gives undefined for a missing step', () => {
    expect(valueAtPath({ a: { b: 1 } }, 'a.b')).toBe(1);
    expect(valueAtPath({ a: 'text' }, 'a.b')).toBeUndefined();
  });
});
