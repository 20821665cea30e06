/**
 * The Responses API takes the same explicit `prompt_cache_breakpoint` markers as Chat
 * Completions (on `input_text`, `input_image`, `input_file` parts and on function-call output
 * items), with the same write limits, so the plan is shared: end of the global static zone,
 * end of the session static zone, last persisted history part; never the tail.
 */
export { chooseBreakpoints, markOpenAIBreakpoints, OPENAI_BREAKPOINT_WRITES } from '../openai-chat/place-breakpoints.js';
