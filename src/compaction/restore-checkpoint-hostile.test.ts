import { describe, expect, it } from 'vitest';
import { ValidationError } from '../model/errors.js';
import { createCheckpoint, MemoryCheckpointStore } from './checkpoint-store.js';
import { createCompactionPipeline } from './pipeline.js';
import { emptyPipelineState } from './pipeline-state.js';
import { makeTestSession } from './test-support.js';

/** A stored checkpoint whose pipelineState is `state` (as an edited or foreign checkpoint file would hold). */
function storeWith(state: unknown) {
  const checkpointStore = new MemoryCheckpointStore();
  const { session } = makeTestSession();
  session.appendUserText('hello');
  const checkpoint = createCheckpoint(session, state, 'test', 1_767_225_600_000);
  checkpointStore.put(checkpoint);
  return { checkpointStore, id: checkpoint.id };
}

const note = { type: 'tool_use' as const, id: 'n1', name: 'session_note', input: { note: 'keep the API stable' } };

describe('restoreCheckpoint with an invalid pipelineState (#21 old failure)', () => {
  it.each([
    ['notes as a string', { notes: 'not a list' }, '.pipelineState.notes'],
    ['a negative requestIndex', { requestIndex: -3 }, '.pipelineState.requestIndex'],
    ['carried without its lists', { carried: {} }, '.pipelineState.carried.userInstructions'],
    [
      'an error without text',
      { carried: { userInstructions: [], activeErrors: [{ toolName: 'x' }] } },
      '.pipelineState.carried.activeErrors[0].text',
    ],
    ['a summary that is a number', { summary: 7 }, '.pipelineState.summary'],
    ['an unknown field', { surprise: true }, '.pipelineState'],
  ])('refuses %s with a ValidationError naming the field, before any session is adopted', async (_name, patch, field) => {
    const { checkpointStore, id } = storeWith({ ...emptyPipelineState(), ...patch });
    const pipeline = createCompactionPipeline({ windowTokens: 10_000, checkpointStore });
    const error = await pipeline.restoreCheckpoint(id).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe(`checkpoint ${id}${field}`);
    expect((pipeline as unknown as { liveSessions: number }).liveSessions).toBe(0);
  });

  it('refuses a pipelineState that is not an object at all (null, a list)', async () => {
    for (const state of [null, [], 'state']) {
      const { checkpointStore, id } = storeWith(state);
      const pipeline = createCompactionPipeline({ windowTokens: 10_000, checkpointStore });
      await expect(pipeline.restoreCheckpoint(id)).rejects.toThrow(/pipelineState: expected/);
    }
  });

  it('restores a valid state, and the tool loop then runs on it', async () => {
    const { checkpointStore, id } = storeWith({ ...emptyPipelineState(), notes: ['earlier note'], requestIndex: 2 });
    const pipeline = createCompactionPipeline({ windowTokens: 10_000, checkpointStore });
    const session = await pipeline.restoreCheckpoint(id);
    expect(pipeline.state(session).requestIndex).toBe(2);
    session.append({ role: 'assistant', content: [note] });
    const result = await pipeline.runTool(session, note);
    expect(result?.isError).toBeUndefined();
    expect(pipeline.notes(session)).toEqual(['earlier note', 'keep the API stable']);
  });
});
