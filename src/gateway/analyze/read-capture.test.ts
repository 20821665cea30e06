import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, MAX_JSON_NODES } from '../../model/json-value-check.js';
import { CaptureError, parseCaptureLine } from './read-capture.js';

const body = { model: 'claude-sonnet-5', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] };
const parse = (line: unknown) => parseCaptureLine(typeof line === 'string' ? line : JSON.stringify(line), 7, 'c.jsonl');
const problem = (line: unknown): string => {
  try {
    parse(line);
  } catch (error) {
    expect(error).toBeInstanceOf(CaptureError);
    return (error as Error).message;
  }
  throw new Error('accepted');
};

describe('parseCaptureLine (the usual line checked by hand, the schema naming what is wrong)', () => {
  it('reads every field of a full line as the schema did', () => {
    const line = {
      at: '2026-11-23T10:00:00Z',
      body,
      usage: { input_tokens: 3, diagnostics: { from: 'usage' } },
      conversation: 'c1',
      provider: 'anthropic',
      cacheMissReason: { type: 'messages_changed', missedTokens: 12, extra: 'dropped' },
      other: 'ignored',
    };
    expect(parse(line)).toEqual({
      at: Date.UTC(2026, 10, 23, 10),
      body,
      usage: { input_tokens: 3, diagnostics: { from: 'usage' } },
      conversation: 'c1',
      provider: 'anthropic',
      cacheMissReason: { type: 'messages_changed', missedTokens: 12 },
      diagnostics: { from: 'usage' },
    });
    expect(parse({ at: 5, body, usage: null, cacheMissReason: null, diagnostics: { own: true } })).toEqual({
      at: 5,
      body,
      diagnostics: { own: true },
    });
  });

  it.each([
    [{ at: -1, body }, /c\.jsonl:7: at: /],
    [{ at: '', body }, /c\.jsonl:7: at: /],
    [{ at: 'soon', body }, /c\.jsonl:7: at: expected milliseconds or an ISO 8601 time, got "soon"/],
    [{ at: 1, body: [] }, /c\.jsonl:7: body: /],
    [{ at: 1 }, /c\.jsonl:7: body: /],
    [{ at: 1, body, usage: 3 }, /c\.jsonl:7: usage: /],
    [{ at: 1, body, conversation: null }, /c\.jsonl:7: conversation: /],
    [{ at: 1, body, conversation: '' }, /c\.jsonl:7: conversation: /],
    [{ at: 1, body, provider: 7 }, /c\.jsonl:7: provider: /],
    [{ at: 1, body, cacheMissReason: { type: 'x' } }, /c\.jsonl:7: cacheMissReason\.missedTokens: /],
    [[1, 2], /c\.jsonl:7: line: /],
  ])('refuses %j naming the field', (line, message) => {
    expect(problem(line)).toMatch(message);
  });

  it('refuses nesting past the depth limit with the path, and accepts it at the limit', () => {
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    // The body is depth 1 and its messages depth 2: arrays from there fill the levels up to the limit.
    expect(parse(`{"at":1,"body":{"messages":${nested(MAX_JSON_DEPTH - 2)}}}`).at).toBe(1);
    expect(problem(`{"at":1,"body":{"messages":${nested(MAX_JSON_DEPTH - 1)}}}`)).toMatch(
      /c\.jsonl:7: body\.messages.*: expected JSON data nested at most 256 levels deep/,
    );
  });

  it('refuses more values than the limit, counted as the general check counts them', () => {
    // The line, `at`, `body` and `body.list` are four values: the list may hold the rest.
    const list = (length: number) => `{"at":1,"body":{"list":[${'0,'.repeat(length - 1)}0]}}`;
    expect(parse(list(MAX_JSON_NODES - 4)).at).toBe(1);
    expect(problem(list(MAX_JSON_NODES - 3))).toMatch(/at most 1000000 JSON values in all/);
  });
});
