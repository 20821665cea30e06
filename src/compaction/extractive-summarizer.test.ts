import { describe, expect, it } from 'vitest';
import type { Message } from '../model/content.js';
import { createExtractiveSummarizer } from './extractive-summarizer.js';
import { toolCall, toolResult } from './test-support.js';

const span: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'Migrate the cache to Redis. Never drop the old keys.' }] },
  toolCall('t1', 'src/cache/store.ts'),
  { role: 'user', content: [toolResult('t1', 'export class Store {}')] },
  {
    role: 'assistant',
    content: [{ type: 'text', text: 'I decided to keep the Store interface. Should the TTL stay at 5 minutes?' }],
  },
  { role: 'user', content: [{ type: 'text', text: 'Yes. Run the tests.' }] },
  { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'run_tests', input: { filter: 'cache' } }] },
  { role: 'user', content: [toolResult('t2', 'FAIL store.test.ts\nexpected 1', true)] },
  { role: 'assistant', content: [{ type: 'text', text: 'The test fails on key expiry.' }] },
];

describe('extractive summariser', () => {
  it('fills the fields from the span without a model, deterministically', async () => {
    const summarizer = createExtractiveSummarizer();
    const input = {
      sessionId: 's',
      span,
      previous: null,
      restoreIds: new Map([['t1', 'ctx_00000000000000aa']]),
      notes: ['note one'],
      now: 0,
    };
    const summary = await summarizer.summarize(input);
    expect(summary.userGoal).toBe('Migrate the cache to Redis. Never drop the old keys.');
    expect(summary.activeTasks).toEqual(['Migrate the cache to Redis. Never drop the old keys.', 'Yes. Run the tests.']);
    expect(summary.completedWork).toEqual([
      'read_file({"path":"src/cache/store.ts"}) -> export class Store {} [restore: ctx_00000000000000aa]',
    ]);
    expect(summary.errorsAndResolutions).toEqual(['run_tests({"filter":"cache"}) failed: FAIL store.test.ts']);
    expect(summary.decisions).toEqual(['I decided to keep the Store interface.']);
    expect(summary.constraintsAndPreferences).toEqual(['Never drop the old keys.']);
    expect(summary.openQuestions).toEqual(['Should the TTL stay at 5 minutes?']);
    expect(summary.filesAndResources).toEqual(['src/cache/store.ts']);
    expect(summary.sessionNotes).toEqual(['note one']);
    expect(await summarizer.summarize(input)).toEqual(summary);
  });

  it('merges with the previous summary: the first goal stays, lists accumulate without duplicates', async () => {
    const summarizer = createExtractiveSummarizer();
    const first = await summarizer.summarize({
      sessionId: 's',
      span: span.slice(0, 4),
      previous: null,
      restoreIds: new Map(),
      notes: [],
      now: 0,
    });
    const second = await summarizer.summarize({
      sessionId: 's',
      span: span.slice(4),
      previous: first,
      restoreIds: new Map(),
      notes: [],
      now: 0,
    });
    expect(second.userGoal).toBe(first.userGoal);
    expect(second.decisions).toEqual(['I decided to keep the Store interface.']);
    expect(second.errorsAndResolutions).toHaveLength(1);
    expect(second.filesAndResources).toEqual(['src/cache/store.ts']);
  });
});
