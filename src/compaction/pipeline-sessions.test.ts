import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { anthropicEstimator } from '../tokens/anthropic-estimator.js';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { FileOffloadStore } from './file-offload-store.js';
import { MemoryOffloadStore, type OffloadStore } from './offload-store.js';
import { createCompactionPipeline } from './pipeline.js';
import { SESSION_NOTE_MAX_CHARACTERS } from './session-notes.js';
import { fileText, makeTestSession, toolCall, toolResult } from './test-support.js';

const counter = anthropicEstimator();
const directories: string[] = [];
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

function pipelineWith(offloadStore: OffloadStore = new MemoryOffloadStore()) {
  return createCompactionPipeline({
    windowTokens: 200_000,
    counter,
    checkpointStore: new MemoryCheckpointStore(),
    offloadStore,
    ingestionThresholdTokens: 600,
    ingestionHeadTokens: 100,
    ingestionTailTokens: 100,
  });
}

/** Ingest one large tool output into `session`; returns the restore id it got. */
async function offloadOne(pipeline: ReturnType<typeof pipelineWith>, session: ReturnType<typeof makeTestSession>['session']) {
  session.appendUserText('read the big file');
  session.append(toolCall('t1', 'big.ts'));
  const [restoreId] = await pipeline.ingest(session, { role: 'user', content: [toolResult('t1', fileText(400))] });
  session.append(toolCall('r1', 'unused', 'context_restore'));
  return restoreId as string;
}

describe('compaction pipeline per-session state', () => {
  it('two sessions sharing an id share neither notes nor offloaded records', async () => {
    const pipeline = pipelineWith();
    const first = makeTestSession().session;
    const second = makeTestSession().session;
    expect(second.id).toBe(first.id);
    const restoreId = await offloadOne(pipeline, first);
    await pipeline.runTool(first, { type: 'tool_use', id: 'n1', name: 'session_note', input: { note: 'keep the API stable' } });
    expect(pipeline.notes(first)).toEqual(['keep the API stable']);
    expect(pipeline.notes(second)).toEqual([]);
    expect(pipeline.state(second).requestIndex).toBe(0);

    // Same id, another session object: state is per object. The store scopes by session id, so
    // a different session id is what keeps B away from A's records.
    const other = makeTestSession().session;
    Object.defineProperty(other, 'id', { value: 'another-session' });
    other.appendUserText('restore it');
    other.append(toolCall('r1', 'x', 'context_restore'));
    const result = await pipeline.runTool(other, {
      type: 'tool_use',
      id: 'r1',
      name: 'context_restore',
      input: { id: restoreId },
    });
    expect(result?.isError).toBe(true);
    expect(JSON.stringify(result?.content)).toContain(`no offloaded content with id ${restoreId}`);
    const own = await pipeline.runTool(first, { type: 'tool_use', id: 'r1', name: 'context_restore', input: { id: restoreId } });
    expect(own?.isError).toBeUndefined();
  });

  it('a 5 MB session_note is an error result and records nothing', async () => {
    const pipeline = pipelineWith();
    const { session } = makeTestSession();
    const result = await pipeline.runTool(session, {
      type: 'tool_use',
      id: 'n1',
      name: 'session_note',
      input: { note: 'n'.repeat(5_000_000) },
    });
    expect(result?.isError).toBe(true);
    const text = JSON.stringify(result?.content);
    expect(text).toContain(`input.note: expected at most ${SESSION_NOTE_MAX_CHARACTERS} characters`);
    expect(text.length).toBeLessThan(1_000);
    expect(pipeline.notes(session)).toEqual([]);
  });

  it('context_restore of a damaged file record is an error result, not a thrown error', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'cachet-pipeline-'));
    directories.push(directory);
    const store = new FileOffloadStore(directory);
    const pipeline = pipelineWith(store);
    const { session } = makeTestSession();
    const restoreId = await offloadOne(pipeline, session);
    await writeFile(join(store.sessionDirectory(session.id), `${restoreId}.json`), '{"id":"ctx_0');
    const result = await pipeline.runTool(session, {
      type: 'tool_use',
      id: 'r1',
      name: 'context_restore',
      input: { id: restoreId },
    });
    expect(result?.isError).toBe(true);
    expect(JSON.stringify(result?.content)).toContain('is damaged');
  });
});
