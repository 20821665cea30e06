/** Base class of every error Cachet throws on purpose. `code` is stable for programs. */
export class CachetError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Input that does not satisfy Cachet's model, naming where (`path`) and what was expected. */
export class ValidationError extends CachetError {
  readonly path: string;
  readonly expected: string;
  constructor(path: string, expected: string, detail?: string) {
    super('invalid_input', `${path}: expected ${expected}${detail ? ` (${detail})` : ''}`);
    this.path = path;
    this.expected = expected;
  }
}

/** A tool handler (skill_load, context_restore, ...) failed; the agent sees it as an error result. */
export class ToolExecutionError extends CachetError {
  readonly toolName: string;
  constructor(toolName: string, message: string, options?: { cause?: unknown }) {
    super('tool_failed', message, options);
    this.toolName = toolName;
  }
}

/** A single input larger than the configured limit, refused before it enters the session. */
export class OversizedInputError extends CachetError {
  readonly tokens: number;
  readonly limit: number;
  constructor(path: string, tokens: number, limit: number) {
    super('oversized_input', `${path}: ${tokens} tokens exceeds the limit of ${limit} tokens for a single input`);
    this.tokens = tokens;
    this.limit = limit;
  }
}
