import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { TextBlock } from '../model/content.js';
import { propertyRuns } from '../model/test-support/property-runs.js';
import { FileOffloadStore } from './file-offload-store.js';
import { MemoryOffloadStore, type OffloadRecord, type OffloadStore, restoreIdFor } from './offload-store.js';
import { OffloadStoreError } from './offload-store-error.js';
import { createContextRestoreTool } from './tools.js';

const directories: string[] = [];
async function tempDir(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'cachet-offload-'));
  directories.push(directory);
  return directory;
}
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

function recordOf(text: string, sessionId = 's1', toolUseId = 't1'): OffloadRecord {
  const content: TextBlock[] = [{ type: 'text', text }];
  return { id: restoreIdFor(content), sessionId, toolUseId, reason: 'ingestion', content, originalTokens: 10 };
}

async function expectOffloadError(promise: Promise<unknown>, code: string, path: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OffloadStoreError);
  expect((error as OffloadStoreError).code).toBe(code);
  expect((error as OffloadStoreError).path).toBe(path);
  expect((error as OffloadStoreError).message).toContain(path);
}

describe('FileOffloadStore durability', () => {
  it('a partial record (a crash mid-write) is refused by get, hides nothing from list, and the next put replaces it', async () => {
    const store = new FileOffloadStore(await tempDir());
    const damaged = recordOf('the output that was being written');
    const sound = recordOf('another output of the same session');
    await store.put(sound);
    const path = join(store.sessionDirectory('s1'), `${damaged.id}.json`);
    const whole = JSON.stringify({ ...damaged, recordSha256: 'f'.repeat(64) });
    await writeFile(path, whole.slice(0, whole.length / 2));
    // A temporary file left behind by a killed writer is not a record.
    await writeFile(join(store.sessionDirectory('s1'), `.${damaged.id}.json.123.tmp`), '{"id":');

    await expectOffloadError(store.get(damaged.id, 's1'), 'offload_corrupt', path);
    expect(await store.list('s1')).toEqual([damaged.id, sound.id].sort());
    expect((await store.get(sound.id, 's1'))?.content).toEqual(sound.content);

    await store.put(damaged);
    expect((await store.get(damaged.id, 's1'))?.content).toEqual(damaged.content);
  });

  it('content that does not match its hash is refused with the path', async () => {
    const store = new FileOffloadStore(await tempDir());
    const record = recordOf('exact bytes');
    await store.put(record);
    const path = join(store.sessionDirectory('s1'), `${record.id}.json`);
    await writeFile(path, (await readFile(path, 'utf8')).replace('exact bytes', 'exact bytez'));
    await expectOffloadError(store.get(record.id, 's1'), 'offload_corrupt', path);
  });

  it('a damaged byte is refused, never returned as a different record (property)', async () => {
    const store = new FileOffloadStore(await tempDir());
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.nat(),
        fc.integer({ min: 1, max: 126 }),
        async (text, at, code) => {
          const record = recordOf(text);
          await store.put(record);
          const path = join(store.sessionDirectory('s1'), `${record.id}.json`);
          const bytes = await readFile(path);
          const original = Buffer.from(bytes);
          bytes[at % bytes.length] = code;
          await writeFile(path, bytes);
          const outcome = await store.get(record.id, 's1').then(
            (read) => ({ read }),
            (error: unknown) => ({ error }),
          );
          await writeFile(path, original);
          // Either refused with the store's typed error, or (when the byte changed nothing JSON reads,
          // such as the case of a hex digit in a \u escape) the very record that was put.
          if ('error' in outcome) expect(outcome.error).toBeInstanceOf(OffloadStoreError);
          else expect(outcome.read).toEqual(record);
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });

  it('a concurrent reader sees no record or the whole record, never half of one', async () => {
    const store = new FileOffloadStore(await tempDir());
    const records = Array.from({ length: 6 }, (_, index) => recordOf(`${index}:${'x'.repeat(3_000_000)}`));
    let writing = true;
    const outcomes = { missing: 0, whole: 0 };
    const reader = (async () => {
      while (writing) {
        for (const record of records) {
          const read = await store.get(record.id, 's1');
          if (read === null) outcomes.missing += 1;
          else {
            expect(read.content).toEqual(record.content);
            outcomes.whole += 1;
          }
        }
      }
    })();
    for (const record of records) await store.put(record);
    writing = false;
    await reader;
    expect(outcomes.whole + outcomes.missing).toBeGreaterThan(0);
    for (const record of records) expect((await store.get(record.id, 's1'))?.content).toEqual(record.content);
  });

  it('a regular file where the directory should be is a typed error naming the path', async () => {
    const root = await tempDir();
    const directory = join(root, 'context');
    await writeFile(directory, 'not a directory');
    const store = new FileOffloadStore(directory);
    await expectOffloadError(store.put(recordOf('a')), 'offload_directory_invalid', directory);
    await expectOffloadError(store.get(recordOf('a').id, 's1'), 'offload_directory_invalid', directory);
    await expectOffloadError(store.list('s1'), 'offload_directory_invalid', directory);
  });

  it('still reads records of the flat layout for their own session, and skips damaged ones in list', async () => {
    const directory = await tempDir();
    const legacy = recordOf('written by an earlier version');
    await writeFile(join(directory, `${legacy.id}.json`), JSON.stringify(legacy));
    await writeFile(join(directory, `${recordOf('damaged').id}.json`), '{"id":"ctx_');
    const store = new FileOffloadStore(directory);
    expect((await store.get(legacy.id, 's1'))?.content).toEqual(legacy.content);
    expect(await store.get(legacy.id, 's2')).toBeNull();
    expect(await store.list('s1')).toEqual([legacy.id]);
  });
});

describe.each([
  ['FileOffloadStore', async (): Promise<OffloadStore> => new FileOffloadStore(await tempDir())],
  ['MemoryOffloadStore', async (): Promise<OffloadStore> => new MemoryOffloadStore()],
])('%s scoping', (_name, makeStore) => {
  it("session B cannot restore session A's record, and each session lists its own", async () => {
    const store = await makeStore();
    const record = recordOf('secret output of A', 'session-a');
    await store.put(record);
    expect(await store.get(record.id, 'session-b')).toBeNull();
    expect(await store.list('session-b')).toEqual([]);
    expect(await store.list('session-a')).toEqual([record.id]);

    // The same content offloaded by B: the same id, a record of its own.
    await store.put({ ...record, sessionId: 'session-b', toolUseId: 'b-call' });
    expect((await store.get(record.id, 'session-a'))?.toolUseId).toBe('t1');
    expect((await store.get(record.id, 'session-b'))?.toolUseId).toBe('b-call');
    expect(await store.list('session-b')).toEqual([record.id]);
  });
});

describe('context_restore over a damaged store', () => {
  it('answers with a tool error naming the record, never throws a store error', async () => {
    const store = new FileOffloadStore(await tempDir());
    const record = recordOf('will be damaged');
    await store.put(record);
    const path = join(store.sessionDirectory('s1'), `${record.id}.json`);
    await writeFile(path, '{"id":"ctx_');
    const tool = createContextRestoreTool(store, { sessionId: 's1', clock: () => 0 });
    const error = await tool.run({ id: record.id }).catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('ToolExecutionError');
    expect((error as Error).message).toContain(path);
  });

  it('cuts a huge id echoed in the error', async () => {
    const tool = createContextRestoreTool(new MemoryOffloadStore(), { sessionId: 's1', clock: () => 0 });
    const error = (await tool.run({ id: 'x'.repeat(10_000_000) }).catch((caught: unknown) => caught)) as Error;
    expect(error.message.length).toBeLessThan(300);
  });
});
