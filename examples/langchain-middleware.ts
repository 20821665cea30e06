/**
 * A LangChain v1 agent (createAgent) with Cachet's middleware. Runs with no key against a local
 * Messages API playing a scripted coding agent.
 *
 *   npm run example:langchain
 */
import { ChatAnthropic } from '@langchain/anthropic';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { cachetMiddleware } from '../src/integrations/langchain/index.js';
import { langChainTools } from '../src/integrations/langchain/test-support/run-coding-agent.js';
import {
  CODING_AGENT_PERSONA,
  CODING_AGENT_TURNS,
  clockText,
  memoryRecallText,
} from '../src/integrations/test-support/coding-agent-script.js';
import { runFigures, startCodingAgentServer } from '../src/integrations/test-support/coding-agent-server.js';

const server = await startCodingAgentServer();
const agent = createAgent({
  model: new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'no-key-needed', anthropicApiUrl: server.origin }),
  tools: langChainTools(),
  systemPrompt: CODING_AGENT_PERSONA,
  middleware: [
    cachetMiddleware({
      // The middleware tells the tail function which turn and step it is: no state of your own.
      tail: (_request, { turn }) => [
        { text: clockText(turn - 1), scope: 'auto' }, // turn or request scope, chosen by cost
        { text: memoryRecallText(turn - 1), scope: 'auto' },
      ],
      onUsage: (usage, info) =>
        console.log(`  turn ${info.turn} step ${info.step}: read ${usage.cacheReadTokens}, wrote ${usage.cacheWrite5mTokens}`),
    }),
  ],
});
let messages: BaseMessage[] = [];
for (const script of CODING_AGENT_TURNS) {
  messages = (await agent.invoke({ messages: [...messages, new HumanMessage(script.user)] })).messages;
}
const figures = runFigures(server.verdicts, server.bodies);
console.log(
  `${figures.requests} requests, read share ${(figures.readShare * 100).toFixed(1)}%, at most ${figures.maxMarkers} markers`,
);
await server.close();
