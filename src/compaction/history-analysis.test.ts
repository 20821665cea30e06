import { describe, expect, it } from 'vitest';
import type { Message } from '../model/content.js';
import { validatePairing } from '../model/validate.js';
import { anthropicEstimator } from '../tokens/anthropic-estimator.js';
import { classifyToolResults, isValidCut, protectedTailStart } from './history-analysis.js';
import { fileText, toolCall, toolResult } from './test-support.js';

const counter = anthropicEstimator();

function history(): Message[] {
  const messages: Message[] = [];
  for (let turn = 0; turn < 6; turn++) {
    messages.push({ role: 'user', content: [{ type: 'text', text: `turn ${turn}` }] });
    messages.push(toolCall(`t${turn}`, `f${turn}.ts`, turn === 1 ? 'deploy' : turn === 2 ? 'session_note' : 'read_file'));
    messages.push({ role: 'user', content: [toolResult(`t${turn}`, fileText(40, `f${turn}`), turn === 1 || turn === 3)] });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `done ${turn}` }] });
  }
  return messages;
}

describe('classifyToolResults', () => {
  it('marks active errors and notes critical, recent turns important, the rest standard', () => {
    const messages = history();
    const refs = classifyToolResults(messages, counter, { tailStart: 20, importantRecentTurns: 2 });
    expect(refs.map((ref) => [ref.toolUseId, ref.priority, ref.activeError])).toEqual([
      ['t0', 'standard', false],
      ['t1', 'critical', true], // deploy failed and never succeeded
      ['t2', 'critical', false], // session_note
      ['t3', 'important', false], // read_file failed, but read_file succeeded later: resolved
      ['t4', 'important', false],
      ['t5', 'important', false], // inside the tail
    ]);
  });
});

describe('protectedTailStart', () => {
  it('starts the tail at a valid cut within the budget, so the rest stands alone', () => {
    const messages = history();
    const perTurn = 4;
    const start = protectedTailStart(messages, counter, 700);
    expect(start).toBeGreaterThan(0);
    expect(start).toBeLessThan(messages.length);
    expect(isValidCut(messages[start] as Message)).toBe(true);
    validatePairing(messages.slice(start), 'tail', { allowPendingAtEnd: false });
    // A zero budget still keeps the last reply with its call.
    expect(protectedTailStart(messages, counter, 0)).toBe(messages.length - 1);
    expect(protectedTailStart(messages, counter, 1_000_000)).toBe(0);
    // Never starts on a tool_result message (it would orphan the results), whatever the budget:
    // every token budget, so the narrow windows that end right after a tool_result are tried too.
    const cuts = new Set<number>();
    for (let budget = 0; budget < 3_000; budget += 1) cuts.add(protectedTailStart(messages, counter, budget));
    expect(cuts.size).toBeGreaterThan(5);
    for (const cut of cuts) {
      expect(
        messages[cut]?.content.some((block) => block.type === 'tool_result'),
        `cut at ${cut}`,
      ).toBe(false);
      expect(cut % perTurn, `cut at ${cut}`).not.toBe(2);
      validatePairing(messages.slice(cut), 'tail', { allowPendingAtEnd: false });
    }
  });
});
