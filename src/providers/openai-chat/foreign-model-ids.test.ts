import { describe, expect, it } from 'vitest';
import { assemble } from '../../session/assemble.js';
import { Session } from '../../session/session.js';
import { convertToOpenAIChat } from './convert-request.js';

function requestFor(model: string) {
  const session = new Session({ id: 's', model, global: { system: [{ label: 'persona', text: 'Be brief.' }], tools: [] } });
  session.appendUserText('hi');
  return assemble(session, { now: 0 });
}

describe('the OpenAI chat adapter on another vendor’s model id', () => {
  it('warns on a Claude model id, naming the adapter to use', () => {
    const { metadata } = convertToOpenAIChat(requestFor('claude-sonnet-4-5'));
    expect(metadata.warnings).toContainEqual({
      code: 'foreign-model-id',
      message: expect.stringMatching(/"claude-sonnet-4-5" is an Anthropic model id: .*anthropic adapter/),
    });
  });

  it('does not warn on OpenAI ids', () => {
    const { metadata } = convertToOpenAIChat(requestFor('gpt-4.1'));
    expect(metadata.warnings.some((warning) => warning.code === 'foreign-model-id')).toBe(false);
  });
});
