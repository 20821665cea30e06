import type { Content, Part } from '@google/genai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AssistantContentBlock } from '../../model/content.js';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import { assemble } from '../../session/assemble.js';
import { fixtureSession } from '../anthropic/test-support/fixtures.js';
import { convertToGemini } from './convert-request.js';

const DATA_FIELDS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse'] as const;

/**
 * What Gemini refuses in `contents`: a content without parts, a part without exactly one data
 * field, an empty text ("Unable to submit request because it has an empty text parameter"), a
 * thought signature outside a model turn.
 */
function geminiRefusals(contents: Content[]): string[] {
  const refusals: string[] = [];
  contents.forEach((content, index) => {
    if (!content.parts || content.parts.length === 0) refusals.push(`contents[${index}]: no parts`);
    (content.parts ?? []).forEach((part: Part, partIndex) => {
      const where = `contents[${index}].parts[${partIndex}]`;
      const fields = DATA_FIELDS.filter((field) => part[field] !== undefined);
      if (fields.length !== 1) refusals.push(`${where}: ${fields.length} data fields`);
      if (part.text !== undefined && part.text.length === 0) refusals.push(`${where}: empty text parameter`);
      if (part.thoughtSignature !== undefined && content.role !== 'model') refusals.push(`${where}: signature on a user part`);
    });
    if (index > 0 && contents[index - 1]?.role === content.role) refusals.push(`contents[${index}]: roles do not alternate`);
  });
  return refusals;
}

/** A conversation whose second reply is `reply` (a reply cut short while thinking, say). */
function conversation(reply: AssistantContentBlock[], tail = true) {
  const session = fixtureSession({ model: 'gemini-2.5-pro', ...(tail ? {} : { tail: [] }) });
  session.appendUserText('Is a.ts exported?');
  session.append({ role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }] });
  session.appendUserText('Go on.');
  session.append({ role: 'assistant', content: reply });
  session.appendUserText('Well?');
  return assemble(session);
}

describe('convertToGemini: model turns that hold only thinking', () => {
  it('sends the thinking as a thought part with its signature, never an empty text part', () => {
    const { body } = convertToGemini(conversation([{ type: 'thinking', thinking: 'Checking exports.', signature: 'sig-A' }]));
    const contents = body.contents as Content[];
    expect(geminiRefusals(contents)).toEqual([]);
    expect(contents[3]).toEqual({
      role: 'model',
      parts: [{ text: 'Checking exports.', thought: true, thoughtSignature: 'sig-A' }],
    });
  });

  it('leaves out a turn of redacted or empty thinking and joins the user turns around it', () => {
    const { body, metadata } = convertToGemini(
      conversation([
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
        { type: 'thinking', thinking: '', signature: 'sig-B' },
      ]),
      {},
    );
    const contents = body.contents as Content[];
    expect(geminiRefusals(contents)).toEqual([]);
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    expect(JSON.stringify(contents[2])).toContain('Go on.');
    expect(JSON.stringify(contents[2])).toContain('Well?');
    expect(metadata.warnings.map((warning) => warning.code)).toContain('thinking-not-sent');
  });

  it('keeps a signature inside its own message: a thought after the reply signs the reply, not the next user turn', () => {
    const { body } = convertToGemini(
      conversation([
        { type: 'text', text: 'It is exported.' },
        { type: 'thinking', thinking: '', signature: 'sig-C' },
      ]),
    );
    const contents = body.contents as Content[];
    expect(geminiRefusals(contents)).toEqual([]);
    expect(contents[3]?.parts).toEqual([{ text: 'It is exported.', thoughtSignature: 'sig-C' }]);
    expect(JSON.stringify(contents[4])).not.toContain('sig-C');
  });

  it('never sends a body Gemini refuses, whatever mix of thinking and text a reply holds (property)', () => {
    const block = fc.oneof(
      fc.record({ type: fc.constant('text' as const), text: fc.string({ minLength: 1, maxLength: 8 }) }),
      fc.record({
        type: fc.constant('thinking' as const),
        thinking: fc.string({ maxLength: 8 }),
        signature: fc.option(fc.constantFrom('sig-1', 'sig-2'), { nil: undefined }),
      }),
      fc.record({ type: fc.constant('redacted_thinking' as const), data: fc.constant('EmwKAhgB') }),
    );
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 5 }), fc.boolean(), (reply, tail) => {
        const cleaned = reply.map((item) =>
          item.type === 'thinking' && item.signature === undefined ? { type: item.type, thinking: item.thinking } : item,
        ) as AssistantContentBlock[];
        const { body } = convertToGemini(conversation(cleaned, tail));
        expect(geminiRefusals(body.contents as Content[])).toEqual([]);
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
