/**
 * A non-fatal note from an adapter (or any conversion step): `code` to filter, count and
 * export (as a span attribute, say), `message` for people, `path` when it concerns one block.
 *
 * Codes in use: `sampling-dropped`, `stop-dropped`, `thinking-not-sent`, `image-as-text`,
 * `document-url-as-text`, `tail-as-user-message`, `tail-breakpoint`, `retention-omitted`, `retention-replaced`,
 * `caller-breakpoint-ignored`, `ttl-raised`, `foreign-model-id`, and the breakpoint-budget codes
 * `too-many-breakpoints`, `not-cacheable`, `ttl-order`, `unknown-path`, `duplicate`.
 */
export interface AdapterWarning {
  code: string;
  message: string;
  path?: string;
}

/**
 * An `AdapterWarning`.
 *
 * @example
 * warnings.push(adapterWarning('stop-dropped', 'params: stopSequences dropped (the Responses API has no stop parameter)'));
 */
export function adapterWarning(code: string, message: string, path?: string): AdapterWarning {
  return path === undefined ? { code, message } : { code, message, path };
}
