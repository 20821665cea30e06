import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import { createAnthropicCacheModel } from '../../cache/models/anthropic-cache-model.js';
import { assemble } from '../../session/assemble.js';
import { Session } from '../../session/session.js';
import { convertRequest } from './convert-request.js';

const library = [
  { name: 'publish_page', description: 'Publish a page. '.repeat(40), inputSchema: { type: 'object' } },
  { name: 'attach_image', description: 'Attach an image. '.repeat(40), inputSchema: { type: 'object' } },
] as const;

const toolName = (tool: object) => ('name' in tool ? tool.name : null);

function session() {
  const value = new Session({
    id: 'deferred',
    model: 'claude-sonnet-5',
    global: {
      tools: [{ name: 'search_tools', description: 'Find tools by keyword', inputSchema: { type: 'object' } }],
      system: [{ label: 'persona', text: 'You build websites. '.repeat(400) }],
    },
    deferredTools: library.map((tool) => ({ ...tool })),
  });
  value.appendUserText('publish the home page');
  return value;
}

function loadPublishPage(value: Session) {
  value.append({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'search_tools', input: { q: 'publish' } }] });
  value.append({
    role: 'user',
    content: [
      { type: 'tool_result', toolUseId: 't1', content: [{ type: 'text', text: 'found' }], toolReferences: ['publish_page'] },
    ],
  });
}

describe('Anthropic deferred tools', () => {
  it('declares deferred tools with defer_loading, adds the tool-search tool and loads through tool_reference', () => {
    const value = session();
    loadPublishPage(value);
    const body: MessageCreateParamsNonStreaming = convertRequest(assemble(value)).body;
    expect(body.tools?.map((tool) => [toolName(tool), 'defer_loading' in tool ? tool.defer_loading : undefined])).toEqual([
      ['search_tools', undefined],
      ['tool_search_tool_regex', undefined],
      ['publish_page', true],
      ['attach_image', true],
    ]);
    const result = body.messages.at(-1)?.content;
    expect(Array.isArray(result) && result[0]?.type === 'tool_result' ? result[0].content : null).toEqual(
      expect.arrayContaining([{ type: 'tool_reference', tool_name: 'publish_page' }]),
    );
    expect(convertRequest(assemble(value), { toolSearch: 'none' }).body.tools?.map(toolName)).not.toContain(
      'tool_search_tool_regex',
    );
  });

  it('keeps the cached prefix when a deferred tool is loaded', () => {
    const model = createAnthropicCacheModel();
    const value = session();
    const first = convertRequest(assemble(value));
    model.judge(first.body, { at: 0 });
    loadPublishPage(value);
    const second = convertRequest(assemble(value), { previous: first.metadata.cacheState });
    const verdict = model.judge(second.body, { at: 5_000 });
    expect(verdict.missCause).toBeNull();
    expect(verdict.cacheReadTokens).toBeGreaterThan(1024);
  });

  it('the cache model leaves deferred definitions out of the prefix', () => {
    const value = session();
    const body = convertRequest(assemble(value)).body;
    const withoutDeferred = { ...body, tools: body.tools?.filter((tool) => !('defer_loading' in tool)) };
    const withDeferred = createAnthropicCacheModel().judge(body, { at: 0 });
    const without = createAnthropicCacheModel().judge(withoutDeferred, { at: 0 });
    expect(withDeferred.inputTokens).toBe(without.inputTokens);
  });

  it('counts a tool_reference as the definition it loads into history', () => {
    const value = session();
    const before = createAnthropicCacheModel().judge(convertRequest(assemble(value)).body, { at: 0 }).inputTokens;
    loadPublishPage(value);
    const body = convertRequest(assemble(value)).body;
    const loaded = createAnthropicCacheModel().judge(body, { at: 0 }).inputTokens;
    const unloaded = createAnthropicCacheModel().judge(
      {
        ...body,
        messages: body.messages.map((message) => ({
          ...message,
          content: Array.isArray(message.content)
            ? message.content.map((block) =>
                block.type === 'tool_result' && Array.isArray(block.content)
                  ? { ...block, content: block.content.filter((part) => part.type !== 'tool_reference') }
                  : block,
              )
            : message.content,
        })),
      },
      { at: 0 },
    ).inputTokens;
    // The 40-times repeated description alone is far more than a reference block's few tokens.
    expect(loaded - unloaded).toBeGreaterThan(100);
    expect(loaded).toBeGreaterThan(before);
  });
});
