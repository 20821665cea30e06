import { describe, expect, it } from 'vitest';
import type { ContentBlock, ToolDefinition } from '../../model/content.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { openAITokenCounter } from '../../tokens/openai-token-counter.js';
import { syntheticPng } from '../../workloads/synthetic-png.js';
import { unitTokens } from './cache-rules.js';
import { normalizeWireBody } from './normalize-wire-body.js';

const code = 'export function total(lines: Line[]): number {\n  return lines.reduce((sum, line) => sum + line.cents, 0);\n}\n';
const tool: ToolDefinition = {
  name: 'read_file',
  description: 'Read a file of the repository and return its text.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
const png = syntheticPng(800, 600, 'wire-countable').toString('base64');
const blocks: ContentBlock[] = [
  { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/total.ts' } },
  { type: 'tool_result', toolUseId: 'toolu_1', content: [{ type: 'text', text: code }] },
  { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: png } },
];

describe('unitTokens', () => {
  it('counts an Anthropic body unit by unit as countBlock counts the canonical blocks', () => {
    const counter = anthropicEstimator();
    const body = {
      model: 'claude-sonnet-4-5',
      tools: [{ name: tool.name, description: tool.description, input_schema: tool.inputSchema }],
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/total.ts' } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: code }] },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
          ],
        },
      ],
    };
    const units = normalizeWireBody(body).units.filter((unit) => unit.kind !== 'param');
    const counted = units.map((unit) => unitTokens(unit, counter));
    expect(counted).toEqual([tool, ...blocks].map((item) => counter.countBlock(item)));
    // The tool result is code: counted at the code ratio, not as prose.
    expect(counted[2]).toBe(counter.countText(code, 'code'));
    expect(counted[2]).toBeGreaterThan(counter.countText(code, 'prose'));
    // 800×600 px → 640 tokens by Anthropic's rule, not the 1,600-token fallback.
    expect(counted[3]).toBe(640);
  });

  it('reads a Responses tool output given as input_text parts as its text, without the JSON framing', () => {
    const counter = openAITokenCounter('o200k_base');
    const body = {
      model: 'gpt-5',
      input: [
        { type: 'function_call', call_id: 'c1', name: 'read_file', arguments: '{"path":"src/total.ts"}' },
        { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: code }] },
      ],
    };
    const units = normalizeWireBody(body).units.filter((unit) => unit.kind !== 'param');
    expect(units.map((unit) => unitTokens(unit, counter))).toEqual([
      counter.countBlock(blocks[0]!),
      counter.countBlock(blocks[1]!),
    ]);
  });
});
