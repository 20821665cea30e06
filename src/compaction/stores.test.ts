import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CachetError, ValidationError } from '../model/errors.js';
import { createCheckpoint, FileCheckpointStore } from './checkpoint-store.js';
import { FileOffloadStore } from './file-offload-store.js';
import { restoreIdFor } from './offload-store.js';
import { createCompactionPipeline } from './pipeline.js';
import { fileText, makeTestSession, toolCall, toolResult } from './test-support.js';

const directories: string[] = [];
async function tempDir(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'cachet-compaction-'));
  directories.push(directory);
  return directory;
}
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

describe('FileOffloadStore', () => {
  it('round-trips content byte-for-byte, keeps the first copy and lists by session', async () => {
    const store = new FileOffloadStore(await tempDir());
    const content = [{ type: 'text' as const, text: `line\r\n\ttab \u0000 nul \u{1F600} "quoted" \\ back` }];
    const id = restoreIdFor(content);
    await store.put({ id, sessionId: 's1', toolUseId: 't1', reason: 'ingestion', content, originalTokens: 12 });
    await store.put({ id, sessionId: 's1', toolUseId: 't2', reason: 'light', content, originalTokens: 12 });
    const record = await store.get(id, 's1');
    expect(record?.content).toEqual(content);
    expect(record?.toolUseId).toBe('t1');
    expect(await store.list('s1')).toEqual([id]);
    expect(await store.list('other')).toEqual([]);
    expect(await store.get('ctx_ffffffffffffffff', 's1')).toBeNull();
  });

  it('refuses ids that are not restore ids (no path escapes)', async () => {
    const store = new FileOffloadStore(await tempDir());
    await expect(store.get('../../etc/passwd', 's1')).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('FileCheckpointStore with the pipeline', () => {
  it('writes .cachet-style files and restores the exact session', async () => {
    const root = await tempDir();
    const offloadStore = new FileOffloadStore(join(root, 'context'));
    const checkpointStore = new FileCheckpointStore(join(root, 'checkpoints'));
    const { session, now } = makeTestSession();
    const pipeline = createCompactionPipeline({ windowTokens: 9_000, offloadStore, checkpointStore });
    for (let turn = 0; turn < 6; turn++) {
      await pipeline.ingest(session, { role: 'user', content: [{ type: 'text', text: `turn ${turn}` }] });
      session.append(toolCall(`t${turn}`, `f${turn}.ts`));
      await pipeline.ingest(session, { role: 'user', content: [toolResult(`t${turn}`, fileText(60, `f${turn}`))] });
      session.append({ role: 'assistant', content: [{ type: 'text', text: `done ${turn}` }] });
    }
    const before = JSON.stringify(session.toJSON());
    const decision = await pipeline.beforeRequest(session, { now });
    expect(decision.action).toBe('applied');
    expect(await readdir(join(root, 'checkpoints'))).toEqual([`${decision.checkpointId}.json`]);
    expect((await readdir(join(root, 'context'))).length).toBeGreaterThan(0);
    const restored = await createCompactionPipeline({ windowTokens: 9_000, offloadStore, checkpointStore }).restoreCheckpoint(
      decision.checkpointId as string,
    );
    expect(JSON.stringify(restored.toJSON())).toBe(before);
  });
});

describe('FileCheckpointStore failures', () => {
  it('a regular file where the directory should be is a typed error naming it', async () => {
    const root = await tempDir();
    const directory = join(root, 'checkpoints');
    await writeFile(directory, 'a file');
    const { session } = makeTestSession();
    const checkpoint = createCheckpoint(session, {}, 'test', 0);
    const error = await new FileCheckpointStore(directory).put(checkpoint).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CachetError);
    expect((error as CachetError).code).toBe('checkpoint_write_failed');
    expect((error as CachetError).message).toContain(`${directory} (or a folder in it) is not a directory`);
  });

  it('a truncated checkpoint file is a typed read error, not a bare SyntaxError', async () => {
    const directory = await tempDir();
    const store = new FileCheckpointStore(directory);
    const { session } = makeTestSession();
    const checkpoint = createCheckpoint(session, {}, 'test', 0);
    await store.put(checkpoint);
    await writeFile(join(directory, `${checkpoint.id}.json`), JSON.stringify(checkpoint).slice(0, 100));
    const error = await store.get(checkpoint.id).catch((caught: unknown) => caught);
    expect((error as CachetError).code).toBe('checkpoint_read_failed');
    expect((error as CachetError).message).toContain('is not complete JSON');
  });
});
