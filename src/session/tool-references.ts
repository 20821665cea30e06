import type { Message, ToolDefinition } from '../model/content.js';
import { ValidationError } from '../model/errors.js';

/** Names a message's tool results load by `toolReferences`; each must be a declared deferred tool. */
export function toolReferencesOf(message: Message, path: string, deferredTools: readonly ToolDefinition[]): string[] {
  const names: string[] = [];
  message.content.forEach((block, index) => {
    if (block.type !== 'tool_result' || !block.toolReferences) return;
    block.toolReferences.forEach((name, nameIndex) => {
      if (!deferredTools.some((tool) => tool.name === name)) {
        throw new ValidationError(
          `${path}.content[${index}].toolReferences[${nameIndex}]`,
          'the name of a tool declared in options.deferredTools',
          `got ${JSON.stringify(name)}`,
        );
      }
      names.push(name);
    });
  });
  return names;
}
