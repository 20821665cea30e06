/** A JSON copy of a body with long strings shortened, so inline snapshots stay readable. */
export function summarise<T>(value: T, maxLength = 100): unknown {
  return JSON.parse(
    JSON.stringify(value, (_key, entry: unknown) =>
      typeof entry === 'string' && entry.length > maxLength ? `<${entry.length} chars: ${entry.slice(0, 40)}…>` : entry,
    ),
  );
}

/** Paths of every block carrying `cache_control` in a Messages API body, in wire order. */
export function markedPaths(body: {
  tools?: unknown[];
  system?: unknown;
  messages: Array<{ content: unknown }>;
  cache_control?: unknown;
}): string[] {
  const paths: string[] = [];
  const visit = (block: unknown, path: string) => {
    if (typeof block === 'object' && block !== null && 'cache_control' in block && block.cache_control) paths.push(path);
  };
  (body.tools ?? []).forEach((tool, index) => {
    visit(tool, `tools[${index}]`);
  });
  if (Array.isArray(body.system))
    body.system.forEach((block, index) => {
      visit(block, `system[${index}]`);
    });
  body.messages.forEach((message, messageIndex) => {
    if (Array.isArray(message.content))
      message.content.forEach((block, index) => {
        visit(block, `messages[${messageIndex}].content[${index}]`);
      });
  });
  if (body.cache_control) paths.push('cache_control');
  return paths;
}
