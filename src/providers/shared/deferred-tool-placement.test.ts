import { describe, expect, it } from 'vitest';
import { assemble } from '../../session/assemble.js';
import { Session } from '../../session/session.js';
import { convertToBedrock } from '../bedrock/convert-request.js';
import { convertToGemini } from '../gemini/convert-request.js';

const library = [
  { name: 'publish_page', description: 'Publish a page.', inputSchema: { type: 'object' } },
  { name: 'attach_image', description: 'Attach an image.', inputSchema: { type: 'object' } },
];

function loaded(model: string) {
  const session = new Session({
    id: 'deferred',
    model,
    global: {
      tools: [{ name: 'search_tools', description: 'Find tools by keyword', inputSchema: { type: 'object' } }],
      system: [{ label: 'persona', text: 'You build websites.' }],
    },
    deferredTools: library.map((tool) => ({ ...tool })),
  });
  session.appendUserText('publish the home page');
  session.append({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'search_tools', input: { q: 'publish' } }] });
  session.append({
    role: 'user',
    content: [
      { type: 'tool_result', toolUseId: 't1', content: [{ type: 'text', text: 'found' }], toolReferences: ['publish_page'] },
    ],
  });
  return assemble(session);
}

describe('deferred tools on wires that cannot defer loading', () => {
  it('Bedrock declares a loaded tool (append) or every deferred tool (upfront)', () => {
    const request = loaded('us.anthropic.claude-sonnet-4-5-20250929-v1:0');
    const names = (placement?: 'append' | 'upfront') =>
      convertToBedrock(request, placement ? { deferredTools: placement } : {})
        .body.toolConfig?.tools?.map((tool) => tool.toolSpec?.name)
        .filter((name) => name !== undefined);
    expect(names()).toEqual(['search_tools', 'publish_page']);
    expect(names('upfront')).toEqual(['search_tools', 'publish_page', 'attach_image']);
  });

  it('Gemini declares a loaded tool (append) or every deferred tool (upfront)', () => {
    const request = loaded('gemini-2.5-flash');
    const names = (placement?: 'append' | 'upfront') =>
      convertToGemini(request, placement ? { deferredTools: placement } : {}).body.config?.tools?.flatMap(
        (tool) =>
          (tool as { functionDeclarations?: Array<{ name?: string }> }).functionDeclarations?.map(
            (declaration) => declaration.name,
          ) ?? [],
      );
    expect(names()).toEqual(['search_tools', 'publish_page']);
    expect(names('upfront')).toEqual(['search_tools', 'publish_page', 'attach_image']);
  });
});
