import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { assemble } from '../../session/assemble.js';
import { fixtureSession, parallelToolLoop, plainChat } from '../anthropic/test-support/fixtures.js';
import { convertToBedrock } from './convert-request.js';

const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const NOVA = 'amazon.nova-pro-v1:0';

/** Where the cache points are: the path of the block each one follows. */
function checkpointSummary(result: ReturnType<typeof convertToBedrock>) {
  return result.metadata.breakpoints.map((point) => `${point.path} ${point.reason} ${point.ttl}`);
}

describe('convertToBedrock', () => {
  it('closes the global zone (tools and persona) with a 1h checkpoint and history with a 5m one', () => {
    const long = 'Guidelines. '.repeat(800);
    const result = convertToBedrock(parallelToolLoop({ model: CLAUDE, globalSystem: [{ label: 'persona', text: long }] }), {
      ttl: { global: '1h' },
    });
    expect(checkpointSummary(result)).toMatchInlineSnapshot(`
      [
        "system[0] global-static 1h",
        "messages[2].content[1] history 5m",
      ]
    `);
    const system = (result.body.system ?? []).map((block) => (block.text ? { text: `${block.text.length} chars` } : block));
    expect(system).toMatchInlineSnapshot(`
      [
        {
          "text": "9600 chars",
        },
        {
          "cachePoint": {
            "ttl": "1h",
            "type": "default",
          },
        },
        {
          "text": "14 chars",
        },
      ]
    `);
  });

  it('never puts a checkpoint in toolConfig for Nova, and caps the cached prefix at 20K tokens', () => {
    const session = fixtureSession({ model: NOVA, globalSystem: [{ label: 'persona', text: 'p'.repeat(8_000) }] });
    session.appendUserText('Read the log.');
    session.append({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'log' } }],
    });
    session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'call_1', content: [{ type: 'text', text: 'x'.repeat(100_000) }] }],
    });
    const result = convertToBedrock(assemble(session), { ttl: { global: '1h' } });
    expect(JSON.stringify(result.body.toolConfig)).not.toContain('cachePoint');
    expect(checkpointSummary(result)).toMatchInlineSnapshot(`
      [
        "system[0] global-static 5m",
        "messages[1].content[0] history 5m",
      ]
    `);
    expect(result.metadata.warnings.map((warning) => warning.message)).toMatchInlineSnapshot(`
      [
        "global: ttl 1h is not offered for Amazon Nova Pro on Bedrock; using 5m",
        "messages[2].content[0]: checkpoint moved to messages[1].content[0], Amazon Nova Pro caches at most 20000 tokens of prefix",
      ]
    `);
  });

  it('falls back to 5m where Bedrock offers no 1h TTL (Claude 3.7 Sonnet)', () => {
    const result = convertToBedrock(plainChat({ model: 'anthropic.claude-3-7-sonnet-20250219-v1:0' }), {
      ttl: { history: '1h' },
    });
    expect(JSON.stringify(result.body)).not.toContain('"1h"');
    expect(result.metadata.warnings[0]?.message).toContain('ttl 1h is not offered for Claude 3.7 Sonnet');
  });

  it('maps tool choice, thinking and sampling; says what Converse cannot carry', () => {
    const result = convertToBedrock(
      plainChat({
        model: CLAUDE,
        params: {
          toolChoice: { type: 'none' },
          thinking: { type: 'enabled', budgetTokens: 2048 },
          temperature: 0.2,
          stopSequences: ['END'],
        },
      }),
    );
    expect(result.body.inferenceConfig).toEqual({ maxTokens: 1024, temperature: 0.2, stopSequences: ['END'] });
    expect(result.body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(result.body.toolConfig?.toolChoice).toBeUndefined();
    expect(result.metadata.warnings.map((warning) => warning.message)).toContain(
      'params.toolChoice "none" dropped: Converse has no such choice (tools kept to protect the cache)',
    );
  });

  it('rejects http image URLs with a typed error naming the block', () => {
    const session = fixtureSession({ model: CLAUDE });
    session.append({ role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } }] });
    expect(() => convertToBedrock(assemble(session))).toThrow(ValidationError);
    expect(() => convertToBedrock(assemble(session))).toThrow(/messages\[0\]\.content\[0\]\.source/);
  });

  it('places no checkpoint in mode none', () => {
    expect(JSON.stringify(convertToBedrock(plainChat({ model: CLAUDE }), { breakpoints: 'none' }).body)).not.toContain(
      'cachePoint',
    );
  });
});

/** Every `text` member anywhere in a body, with its path: Converse and Claude refuse an empty one. */
function emptyTexts(value: unknown, path = 'body'): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => emptyTexts(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, member]) =>
    key === 'text' && member === '' ? [`${path}.text`] : emptyTexts(member, `${path}.${key}`),
  );
}

describe('convertToBedrock: a tool result without output', () => {
  it.each([CLAUDE, NOVA])('on %s carries a non-empty text block, never an empty one', (model) => {
    const session = fixtureSession({ model });
    session.appendUserText('Create the output directory.');
    session.append({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'out/' } }],
    });
    session.append({ role: 'user', content: [{ type: 'tool_result', toolUseId: 'call_1', content: [] }] });
    const { body } = convertToBedrock(assemble(session));
    expect(emptyTexts(body)).toEqual([]);
    const result = body.messages?.[2]?.content?.find((block) => block.toolResult)?.toolResult;
    expect(result?.content).toEqual([{ text: '(no output)' }]);
  });
});
