import type { TailContext, TailProvider } from '../session/tail-provider.js';
import { renderSkillGroup } from './render-skill-group.js';
import type { MatchedSkill, SkillMatcher } from './skill-matcher.js';

export interface MatchedSkillsTailOptions {
  /** Called with each new match set (once per distinct user input), for traces and tests. */
  onMatch?: (matches: readonly MatchedSkill[], context: TailContext) => void;
}

/**
 * Per-turn matching mode as a TailProvider: matches the latest user input and renders the
 * matched skills as one `skills` item placed before the user's own text. Tail items are never
 * persisted and never touch the system prompt, so the cached prefix is the same whatever
 * matches. Steps of one tool loop share the turn's input and therefore its match.
 *
 * @example
 * const session = new Session({ ...options, tail: [matchedSkillsTail(new SkillMatcher(store)), currentTimeProvider()] });
 */
export function matchedSkillsTail(matcher: SkillMatcher, options: MatchedSkillsTailOptions = {}): TailProvider {
  let lastInput: string | null = null;
  let lastText = '';
  return {
    kind: 'skills',
    position: 'before-user-text',
    render(context) {
      if (context.latestUserText !== lastInput) {
        const matches = matcher.match(context.latestUserText);
        lastInput = context.latestUserText;
        lastText = renderSkillGroup(matches.map((match) => match.skill));
        options.onMatch?.(matches, context);
      }
      return lastText.length > 0 ? lastText : null;
    },
  };
}
