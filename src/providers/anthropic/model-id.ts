/**
 * A Claude id from any provider's spelling: OpenRouter's `anthropic/claude-sonnet-4.5` →
 * `claude-sonnet-4-5`; other ids pass through.
 *
 * @example
 * claudeModelId('anthropic/claude-haiku-4.5'); // 'claude-haiku-4-5'
 */
export function claudeModelId(model: string): string {
  return model.replace(/^anthropic\//, '').replaceAll('.', '-');
}
