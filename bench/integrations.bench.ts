/**
 * The scripted six-turn coding agent (tool loops of 2–3 steps, clock and memory recall changing
 * every turn) run through the real libraries against a local Messages API, every captured body
 * judged by Cachet's Anthropic cache model. Prints reads, writes and the read share per run.
 *   npm run bench -- integrations
 */
import { runCodingAgentOnAiSdk } from '../src/integrations/ai-sdk/test-support/run-coding-agent.js';
import { runCodingAgentOnLangChain } from '../src/integrations/langchain/test-support/run-coding-agent.js';
import { runCodingAgentOnPi } from '../src/integrations/pi/test-support/run-coding-agent.js';
import { type RunFigures, runFigures, startCodingAgentServer } from '../src/integrations/test-support/coding-agent-server.js';

async function measure(run: (origin: string) => Promise<unknown>): Promise<RunFigures> {
  const server = await startCodingAgentServer();
  try {
    await run(server.origin);
    return runFigures(server.verdicts, server.bodies);
  } finally {
    await server.close();
  }
}

const rows: Array<[string, RunFigures]> = [
  ['AI SDK 6: cookbook dynamic prompt caching', await measure((origin) => runCodingAgentOnAiSdk(origin, 'recipe'))],
  ['AI SDK 6: cachetMiddleware()', await measure((origin) => runCodingAgentOnAiSdk(origin, 'cachet'))],
  [
    'AI SDK 6: cachetMiddleware() + tail, scope request',
    await measure((origin) => runCodingAgentOnAiSdk(origin, 'cachet-tail', { tailScope: 'request' })),
  ],
  ['AI SDK 6: cachetMiddleware() + tail, scope auto', await measure((origin) => runCodingAgentOnAiSdk(origin, 'cachet-tail'))],
  [
    'AI SDK 6: cachetMiddleware() + tail, scope turn',
    await measure((origin) => runCodingAgentOnAiSdk(origin, 'cachet-tail', { tailScope: 'turn' })),
  ],
  ['LangChain: anthropicPromptCachingMiddleware', await measure((origin) => runCodingAgentOnLangChain(origin, 'recipe'))],
  ['LangChain: cachetMiddleware()', await measure((origin) => runCodingAgentOnLangChain(origin, 'cachet'))],
  [
    'LangChain: cachetMiddleware() + tail, scope request',
    await measure((origin) => runCodingAgentOnLangChain(origin, 'cachet-tail', { tailScope: 'request' })),
  ],
  [
    'LangChain: cachetMiddleware() + tail, scope auto',
    await measure((origin) => runCodingAgentOnLangChain(origin, 'cachet-tail')),
  ],
  [
    'LangChain: cachetMiddleware() + tail, scope turn',
    await measure((origin) => runCodingAgentOnLangChain(origin, 'cachet-tail', { tailScope: 'turn' })),
  ],
  ['pi-ai: its own markers', await measure((origin) => runCodingAgentOnPi(origin, 'pi'))],
  [
    'pi-ai: cachetPiHooks() + tail, scope request',
    await measure((origin) => runCodingAgentOnPi(origin, 'cachet-tail', { tailScope: 'request' })),
  ],
  ['pi-ai: cachetPiHooks() + tail, scope auto', await measure((origin) => runCodingAgentOnPi(origin, 'cachet-tail'))],
  [
    'pi-ai: cachetPiHooks() + tail, scope turn',
    await measure((origin) => runCodingAgentOnPi(origin, 'cachet-tail', { tailScope: 'turn' })),
  ],
];

const format = (value: number) => value.toLocaleString('en-US');
// Input cost in input-token units at Anthropic's 5-minute rates (write 1.25×, read 0.1×).
const cost = (figures: RunFigures) => figures.uncachedTokens + 1.25 * figures.cacheWriteTokens + 0.1 * figures.cacheReadTokens;
console.log(
  '| run | requests | input | read | written | uncached | read share | input cost (token units) | max markers | rejected |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const [name, figures] of rows) {
  console.log(
    `| ${name} | ${figures.requests} | ${format(figures.inputTokens)} | ${format(figures.cacheReadTokens)} | ${format(figures.cacheWriteTokens)} | ${format(figures.uncachedTokens)} | ${(figures.readShare * 100).toFixed(1)}% | ${format(Math.round(cost(figures)))} | ${figures.maxMarkers} | ${figures.rejected} |`,
  );
}
