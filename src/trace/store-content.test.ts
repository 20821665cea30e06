import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { openSqliteTraceStore } from './sqlite-trace-store.js';
import { contentHash, hashStrings, redactEvent, withStoreContent } from './store-content.js';

const SECRET = 'PLANTED-secret-prompt-text';

const cacheBreak: CachetEvent = {
  type: 'cache.break',
  sessionId: 's',
  seq: 1,
  at: 1,
  payload: {
    turn: 1,
    step: 0,
    cause: 'clock',
    zone: 'system',
    path: 'system[0]',
    byteOffset: 12,
    before: `… ${SECRET} 10:00 …`,
    after: `… ${SECRET} 10:05 …`,
    missedTokens: 900,
  },
};

const assembled = {
  type: 'request.assembled',
  sessionId: 's',
  seq: 2,
  at: 2,
  payload: {
    turn: 1,
    step: 0,
    provider: 'anthropic',
    model: 'claude-sonnet-5',
    zoneTokens: { global: 1, session: 0, history: 0, tail: 0 },
    prefixHash: 'abc',
    blockCount: 1,
    sharedBlocks: 0,
    blockHashes: [{ path: 'system[0]', zone: 'global', hash: 'abc' }],
    breakpoints: [],
    padding: null,
    warnings: [],
  },
} as unknown as CachetEvent;

describe('redactEvent', () => {
  it('hashes: excerpts become hashes (equal text, equal hash); cause, path and tokens stay', () => {
    const redacted = redactEvent(cacheBreak, 'hashes');
    expect(redacted.payload).toMatchObject({ cause: 'clock', path: 'system[0]', byteOffset: 12, missedTokens: 900 });
    expect(JSON.stringify(redacted)).not.toContain(SECRET);
    expect(redacted.payload).toMatchObject({ before: contentHash(`… ${SECRET} 10:00 …`) });
    expect(redactEvent(assembled, 'hashes')).toBe(assembled);
    // The event given is never changed.
    expect(cacheBreak.payload).toMatchObject({ before: `… ${SECRET} 10:00 …` });
  });

  it('none: no text and no hash of it', () => {
    expect(redactEvent(cacheBreak, 'none').payload).toMatchObject({ before: null, after: null, cause: 'clock' });
    expect(redactEvent(assembled, 'none').payload).toMatchObject({
      prefixHash: '',
      blockHashes: [{ path: 'system[0]', zone: 'global', hash: '' }],
    });
  });

  it('hashStrings keeps the shape and the words that say what a body is', () => {
    expect(
      hashStrings({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: SECRET }] }], max_tokens: 5 }),
    ).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: contentHash(SECRET) }] }],
      max_tokens: 5,
    });
  });
});

describe('withStoreContent', () => {
  it('redacts what is appended and dead-lettered; reads go to the store itself', async () => {
    const store = withStoreContent(openSqliteTraceStore(':memory:'), 'hashes');
    await store.appendBatch([cacheBreak]);
    await store.deadLetter([{ event: { type: 'cache.break', payload: { before: SECRET } }, reason: 'test' }]);
    const [stored] = await store.events({ sessionId: 's' });
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(stored?.payload).toMatchObject({ cause: 'clock' });
    expect(JSON.stringify(await store.deadLetters())).not.toContain(SECRET);
    await store.close();
  });
});
