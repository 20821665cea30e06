/**
 * An existing AI SDK agent loop (generateText with tools and stopWhen) with Cachet added as
 * one middleware. Runs with no key against a local Messages API that plays a scripted coding
 * agent and reports, as usage, what Cachet's Anthropic cache model says each body would read.
 *
 *   npm run example:ai-sdk
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from 'ai';
import { EventBus } from '../src/events/event-bus.js';
import { cachetMiddleware } from '../src/integrations/ai-sdk/index.js';
import { aiSdkTools } from '../src/integrations/ai-sdk/test-support/run-coding-agent.js';
import {
  CODING_AGENT_PERSONA,
  CODING_AGENT_TURNS,
  clockText,
  memoryRecallText,
} from '../src/integrations/test-support/coding-agent-script.js';
import { runFigures, startCodingAgentServer } from '../src/integrations/test-support/coding-agent-server.js';

const server = await startCodingAgentServer();
const anthropic = createAnthropic({ baseURL: `${server.origin}/v1`, apiKey: 'no-key-needed' });
const bus = new EventBus();
bus.on('cache.break', (event) => console.log(`  cache.break: ${event.payload.cause} at ${event.payload.path}`));

// The one change: wrap the model. Volatile context goes in the tail, after the last breakpoint,
// not in the system prompt; the middleware tells the tail function which turn and step it is.
const middleware = cachetMiddleware({
  bus,
  tail: (_params, { turn }) => [
    { text: clockText(turn - 1), scope: 'auto' }, // turn or request scope, chosen by cost
    { text: memoryRecallText(turn - 1), scope: 'auto' },
  ],
  onRequest: (info) => {
    const scopes = info.tailScopes.map((decision) => decision.scope).join(', ');
    console.log(`  turn ${info.turn} step ${info.step}: tail ${scopes || '(kept in the turn’s message)'}`);
  },
});
const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware });

const messages: ModelMessage[] = [];
for (const [turn, script] of CODING_AGENT_TURNS.entries()) {
  messages.push({ role: 'user', content: script.user });
  const result = await generateText({
    model,
    system: CODING_AGENT_PERSONA,
    messages,
    tools: aiSdkTools(),
    stopWhen: stepCountIs(6),
  });
  messages.push(...result.response.messages);
  console.log(`turn ${turn + 1}: ${result.steps.length} requests, "${result.text.slice(0, 60)}…"`);
}
const figures = runFigures(server.verdicts, server.bodies);
console.log(
  `${figures.requests} requests, read share ${(figures.readShare * 100).toFixed(1)}%, at most ${figures.maxMarkers} markers a request`,
);
await server.close();
