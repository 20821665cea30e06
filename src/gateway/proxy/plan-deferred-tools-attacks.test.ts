import { describe, expect, it } from 'vitest';
import { createAnthropicCacheModel } from '../../cache/models/anthropic-cache-model.js';
import { normalizeWireBody } from '../../cache/wire/normalize-wire-body.js';
import { planCacheFields } from './plan-cache-fields.js';

/**
 * `--plan` against a client that uses tool search (Claude Code with MCP tools deferred): the tools
 * array ends with definitions sent with `defer_loading: true`, which are not part of the cached
 * prefix (platform docs, "Tool use with prompt caching": deferred tools are not in the prefix;
 * Cachet's own adapter never marks them). Reference: the breakpoints the Anthropic cache model
 * reads in the planned body, as for Cachet's adapter: the tools zone's marker must sit on a tool
 * that is in the prefix, so the tools entry is written and read.
 */

type JsonRecord = Record<string, unknown>;

const body = (): JsonRecord => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  tools: [
    { name: 'read', description: `Reads a file. ${'detail '.repeat(1500)}`, input_schema: { type: 'object' } },
    { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' },
    { name: 'mcp__jira__create', description: 'Creates an issue.', input_schema: { type: 'object' }, defer_loading: true },
    { name: 'mcp__jira__search', description: 'Searches issues.', input_schema: { type: 'object' }, defer_loading: true },
  ],
  system: [{ type: 'text', text: `You are careful. ${'rule '.repeat(1500)}` }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Find the open bugs.', cache_control: { type: 'ephemeral' } }] }],
});

describe('--plan with deferred tools at the end of the tools array', () => {
  it('marks the last tool of the prefix, never a deferred definition', () => {
    const plan = planCacheFields('anthropic', body(), {
      conversationId: 'c',
      previousResponseId: null,
      previousBreakpointPosition: null,
    });
    const tools = plan.body.tools as JsonRecord[];
    expect(tools.filter((tool) => tool.defer_loading === true && tool.cache_control !== undefined)).toEqual([]);
    // The cache model reads a breakpoint at the end of the tools in the prefix.
    const marked = normalizeWireBody(plan.body, 'anthropic').units.filter((unit) => unit.breakpoint !== null);
    expect(marked.map((unit) => unit.zone)).toContain('tools');
  });

  it('so a changed system prompt still reads the tools entry', () => {
    const model = createAnthropicCacheModel();
    const context = { conversationId: 'c', previousResponseId: null, previousBreakpointPosition: null };
    model.judge(planCacheFields('anthropic', body(), context).body, { at: 0 });
    const changed = body();
    (changed.system as JsonRecord[])[0]!.text = `You are careful today. ${'rule '.repeat(1500)}`;
    const verdict = model.judge(planCacheFields('anthropic', changed, context).body, { at: 60_000 });
    expect(verdict.cacheReadTokens).toBeGreaterThan(1_100);
  });
});
