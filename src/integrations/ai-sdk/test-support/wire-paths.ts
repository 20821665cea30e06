/** `path -> cache_control` for every marker in a Messages API body (any depth), in key order. */
export function cacheControlPaths(value: unknown, path = ''): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  const visit = (node: unknown, at: string) => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        visit(item, `${at}[${index}]`);
      });
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const [key, child] of Object.entries(node)) {
      if (key === 'cache_control') {
        if (child !== undefined && child !== null) found[at === '' ? 'cache_control' : at] = child;
        continue;
      }
      visit(child, at === '' ? key : `${at}.${key}`);
    }
  };
  visit(value, path);
  return found;
}

/** A JSON copy without `cache_control` keys, to compare the rest of two bodies byte for byte. */
export function withoutCacheControl(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, entry: unknown) => (key === 'cache_control' ? undefined : entry)));
}
