import { describe, expect, it } from 'vitest';
import { OversizedInputError } from '../model/errors.js';
import { anthropicEstimator } from '../tokens/anthropic-estimator.js';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { filterToolResult } from './ingestion-filter.js';
import { MemoryOffloadStore } from './offload-store.js';
import { createCompactionPipeline } from './pipeline.js';
import { fileText, makeTestSession, toolCall, toolResult } from './test-support.js';

const limits = { thresholdTokens: 1_000, headTokens: 200, tailTokens: 100 };

describe('ingestion filter', () => {
  const counter = anthropicEstimator();

  it('keeps a large output as head + marker + tail and returns the whole original', () => {
    const text = fileText(2_000);
    const block = toolResult('t1', text);
    const result = filterToolResult(block, limits, counter, { sessionId: 's', reason: 'ingestion' });
    const kept = result.block.content[0];
    if (kept?.type !== 'text' || !result.offloaded) throw new Error('expected a truncated text block');
    expect(kept.text.startsWith('const a0 = compute(0);')).toBe(true);
    expect(kept.text.endsWith('// line 1999 of a.ts')).toBe(true);
    expect(kept.text).toContain(`context_restore with {"id":"${result.offloaded.id}"}`);
    expect(result.keptTokens).toBeLessThan(450);
    expect(result.offloaded.content).toEqual(block.content);
    expect(result.offloaded.id).toMatch(/^ctx_[0-9a-f]{16}$/);
  });

  it('leaves outputs at or below the threshold alone and gives equal content the same id', () => {
    const small = toolResult('t1', fileText(10));
    expect(filterToolResult(small, limits, counter, { sessionId: 's', reason: 'ingestion' }).offloaded).toBeNull();
    const one = filterToolResult(toolResult('t1', fileText(2_000)), limits, counter, { sessionId: 's', reason: 'ingestion' });
    const two = filterToolResult(toolResult('t2', fileText(2_000)), limits, counter, { sessionId: 's', reason: 'ingestion' });
    expect(one.offloaded?.id).toBe(two.offloaded?.id);
    expect(one.block.content).toEqual(two.block.content);
  });
});

describe('pipeline.ingest', () => {
  it('offloads before appending, restores byte-for-byte and emits context events', async () => {
    const { session, events } = makeTestSession();
    const offloadStore = new MemoryOffloadStore();
    const pipeline = createCompactionPipeline({
      windowTokens: 200_000,
      offloadStore,
      checkpointStore: new MemoryCheckpointStore(),
    });
    const original = `${fileText(3_000)}\n\u00e9\u{1F600} end`;
    await pipeline.ingest(session, { role: 'user', content: [{ type: 'text', text: 'read it' }] });
    session.append(toolCall('t1', 'a.ts'));
    const ids = await pipeline.ingest(session, { role: 'user', content: [toolResult('t1', original)] });
    expect(ids).toHaveLength(1);
    const restored = await pipeline.runTool(session, {
      type: 'tool_use',
      id: 't2',
      name: 'context_restore',
      input: { id: ids[0] as string },
    });
    expect(restored?.content).toEqual([{ type: 'text', text: original }]);
    expect(events.map((event) => event.type)).toEqual([
      'session.started',
      'turn.started',
      'context.offloaded',
      'context.restored',
    ]);
    // The agent asked for the content back: a restore result is not truncated again.
    session.append({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't2', name: 'context_restore', input: { id: ids[0] as string } }],
    });
    expect(await pipeline.ingest(session, { role: 'user', content: [restored as never] })).toEqual([]);
    expect(JSON.stringify(session.history.at(-1))).toContain('end');
  });

  it('turns an unknown restore id into an error result naming it', async () => {
    const { session } = makeTestSession();
    const pipeline = createCompactionPipeline({
      windowTokens: 200_000,
      offloadStore: new MemoryOffloadStore(),
      checkpointStore: new MemoryCheckpointStore(),
    });
    const result = await pipeline.runTool(session, {
      type: 'tool_use',
      id: 't9',
      name: 'context_restore',
      input: { id: 'ctx_0000000000000000' },
    });
    expect(result?.isError).toBe(true);
    expect(JSON.stringify(result?.content)).toContain('no offloaded content with id ctx_0000000000000000');
    expect(await pipeline.runTool(session, { type: 'tool_use', id: 't9', name: 'read_file', input: {} })).toBeNull();
  });

  it('refuses an oversized user input before it enters the session', async () => {
    const { session } = makeTestSession();
    const pipeline = createCompactionPipeline({
      windowTokens: 200_000,
      maxInputTokens: 5_000,
      offloadStore: new MemoryOffloadStore(),
      checkpointStore: new MemoryCheckpointStore(),
    });
    const before = JSON.stringify(session.toJSON());
    const attempt = pipeline.ingest(session, { role: 'user', content: [{ type: 'text', text: fileText(4_000) }] });
    await expect(attempt).rejects.toBeInstanceOf(OversizedInputError);
    await expect(attempt).rejects.toThrow(/messages\[0\]\.content\[0\]: \d+ tokens exceeds the limit of 5000/);
    expect(JSON.stringify(session.toJSON())).toBe(before);
  });
});
