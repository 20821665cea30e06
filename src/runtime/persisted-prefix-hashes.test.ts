import { describe, expect, it } from 'vitest';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import { persistedPrefixHashes, type WrittenPrefixHashes } from './session-ttl.js';

/**
 * `persistedPrefixHashes` with what it wrote last keeps the entries it read from the session's
 * same append-only block array and reads only the blocks after them. Every request of a
 * session that grows, carries a tail, discovers a tool and rewrites its history must give the
 * entries and static end that reading every block gives.
 */
describe('persistedPrefixHashes kept across requests', () => {
  it('equals reading every block, request after request', () => {
    const session = new Session({
      id: 'persisted-hashes-test',
      model: 'claude-sonnet-4-5',
      global: { system: [{ label: 'persona', text: 'You reconcile invoices. '.repeat(20) }] },
      clock: () => 0,
    });
    const into: string[] = [];
    const written: WrittenPrefixHashes = { source: null, reusable: 0, staticEndAt: -1 };
    const check = (withTail: boolean) => {
      const tail = withTail ? [{ kind: 'time' as const, text: `now: ${into.length}`, position: 'end' as const }] : [];
      const request = assemble(session, { tail });
      const kept = persistedPrefixHashes(request, into, written);
      const fresh: string[] = [];
      expect(kept).toBe(persistedPrefixHashes(request, fresh));
      expect(into).toEqual(fresh);
      return written.reusable;
    };
    session.appendUserText('Reconcile March.');
    check(true);
    const reused: number[] = [];
    for (let step = 0; step < 6; step++) {
      session.append({ role: 'assistant', content: [{ type: 'tool_use', id: `po-${step}`, name: 'lookup', input: { step } }] });
      session.append({
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: `po-${step}`, content: [{ type: 'text', text: `PO ${step} found.` }] }],
      });
      reused.push(check(step % 2 === 0));
      if (step === 2) session.discoverTools([{ name: 'refund', description: 'Refunds.', inputSchema: { type: 'object' } }]);
    }
    session.rewriteHistory([{ role: 'user', content: [{ type: 'text', text: 'Summary so far.' }] }], 'compaction');
    check(true);
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'Noted.' }] });
    session.appendUserText('Go on.');
    check(false);
    // The entries were kept, not only equal: the count read from the shared array grows.
    expect(reused.at(-1)).toBeGreaterThan(reused[0]!);
  });
});
