/**
 * pi-ai with Cachet's onPayload hook. Runs with no key against a local Messages API playing
 * the first turn of a scripted coding agent.
 *
 *   npm run example:pi
 */
import { type AssistantMessage, type Context, complete, type Model } from '@mariozechner/pi-ai';
import { cachetPiHooks } from '../src/integrations/pi/index.js';
import { CODING_AGENT_PERSONA, clockText } from '../src/integrations/test-support/coding-agent-script.js';
import { runFigures, startCodingAgentServer } from '../src/integrations/test-support/coding-agent-server.js';

const server = await startCodingAgentServer();
const model: Model<'anthropic-messages'> = {
  id: 'claude-sonnet-4-5',
  name: 'Claude Sonnet 4.5 (local)',
  api: 'anthropic-messages',
  provider: 'anthropic',
  baseUrl: server.origin,
  reasoning: false,
  input: ['text'],
  cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  contextWindow: 200_000,
  maxTokens: 8_192,
};
const cachet = cachetPiHooks({
  conversationId: 'pi-example',
  tail: ({ turn }) => ({ text: clockText(turn - 1), scope: 'auto' }),
});
const context: Context = {
  systemPrompt: CODING_AGENT_PERSONA,
  messages: [{ role: 'user', content: 'The CI job fails. Find out why.', timestamp: Date.now() }],
};
const reply: AssistantMessage = await complete(model, context, { apiKey: 'no-key-needed', onPayload: cachet.onPayload });
const usage = cachet.recordUsage(reply);
// null when the reply carried no usable usage (reported to onError; never thrown).
console.log(`stop: ${reply.stopReason}; read ${usage?.cacheReadTokens ?? '?'}, wrote ${usage?.cacheWrite5mTokens ?? '?'}`);
console.log(runFigures(server.verdicts, server.bodies));
await server.close();
