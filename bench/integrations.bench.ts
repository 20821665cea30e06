/**
 * The scripted six-turn coding agent (clock and memory recall in the system prompt every turn)
 * run through each library's real package against a local Messages API, every captured body
 * judged by Cachet's Anthropic cache model; once with one tool call per step, once with parallel
 * tool calls. Per library: its own recipe, Cachet in one line, Cachet's recommended
 * configuration (static system prompt, clock and memory as an `auto`-scoped tail),
 * `volatile: 'auto'` on the recipe's dynamic system prompt with no other change, and the recipe
 * unchanged behind `cachet proxy --plan --volatile auto`. Prints input
 * cost in token units and its ratios to the recipe and to Cachet's own `Session` on the same
 * script, fed the tool JSON that library sent (LangChain's zod tools become larger JSON schemas
 * than the script's: `$schema`, `additionalProperties`; a yardstick with smaller tools would
 * charge the library for its tool format, not its caching), and checks the targets (recommended
 * and volatile ≤ recipe and ≤ 1.005 × Session).
 *   npm run bench -- integrations
 */
import { startProxy } from '../src/gateway/proxy/start-proxy.js';
import { runCodingAgentOnAiSdk } from '../src/integrations/ai-sdk/test-support/run-coding-agent.js';
import { runCodingAgentOnLangChain } from '../src/integrations/langchain/test-support/run-coding-agent.js';
import { runCodingAgentOnPi } from '../src/integrations/pi/test-support/run-coding-agent.js';
import {
  CODING_AGENT_TURNS,
  PARALLEL_CODING_AGENT_TURNS,
  type ScriptedUserTurn,
} from '../src/integrations/test-support/coding-agent-script.js';
import { type RunFigures, runFigures, startCodingAgentServer } from '../src/integrations/test-support/coding-agent-server.js';
import { runCodingAgentOnSession, type WireTool } from '../src/integrations/test-support/run-coding-agent-on-session.js';

type Row = {
  name: string;
  role: 'recipe' | 'one-line' | 'recommended' | 'volatile';
  run: (origin: string) => Promise<unknown>;
  /** The library's requests go through `cachet proxy --plan --volatile auto` (no code change in the client). */
  viaProxy?: boolean;
};

const PROXY_ROW = 'recipe → cachet proxy --plan --volatile auto';

const LIBRARIES: Array<{ library: string; rows: Row[] }> = [
  {
    library: 'AI SDK 6',
    rows: [
      { name: 'cookbook dynamic prompt caching', role: 'recipe', run: (origin) => runCodingAgentOnAiSdk(origin, 'recipe') },
      { name: 'cachetMiddleware()', role: 'one-line', run: (origin) => runCodingAgentOnAiSdk(origin, 'cachet') },
      { name: 'cachetMiddleware({ tail })', role: 'recommended', run: (origin) => runCodingAgentOnAiSdk(origin, 'cachet-tail') },
      {
        name: "cachetMiddleware({ volatile: 'auto' })",
        role: 'volatile',
        run: (origin) => runCodingAgentOnAiSdk(origin, 'cachet', { middleware: { volatile: 'auto' } }),
      },
      { name: PROXY_ROW, role: 'volatile', viaProxy: true, run: (origin) => runCodingAgentOnAiSdk(origin, 'recipe') },
    ],
  },
  {
    library: 'LangChain',
    rows: [
      { name: 'anthropicPromptCachingMiddleware', role: 'recipe', run: (origin) => runCodingAgentOnLangChain(origin, 'recipe') },
      { name: 'cachetMiddleware()', role: 'one-line', run: (origin) => runCodingAgentOnLangChain(origin, 'cachet') },
      {
        name: 'cachetMiddleware({ tail })',
        role: 'recommended',
        run: (origin) => runCodingAgentOnLangChain(origin, 'cachet-tail'),
      },
      {
        name: "cachetMiddleware({ volatile: 'auto' })",
        role: 'volatile',
        run: (origin) => runCodingAgentOnLangChain(origin, 'cachet', { middleware: { volatile: 'auto' } }),
      },
      { name: PROXY_ROW, role: 'volatile', viaProxy: true, run: (origin) => runCodingAgentOnLangChain(origin, 'recipe') },
    ],
  },
  {
    library: 'pi-ai',
    rows: [
      { name: 'its own markers', role: 'recipe', run: (origin) => runCodingAgentOnPi(origin, 'pi') },
      { name: 'cachetPiHooks()', role: 'one-line', run: (origin) => runCodingAgentOnPi(origin, 'cachet') },
      { name: 'cachetPiHooks({ tail })', role: 'recommended', run: (origin) => runCodingAgentOnPi(origin, 'cachet-tail') },
      {
        name: "cachetPiHooks({ volatile: 'auto' })",
        role: 'volatile',
        run: (origin) => runCodingAgentOnPi(origin, 'cachet', { volatile: 'auto' }),
      },
      { name: PROXY_ROW, role: 'volatile', viaProxy: true, run: (origin) => runCodingAgentOnPi(origin, 'pi') },
    ],
  },
];

// Input cost in input-token units at Anthropic's 5-minute rates (write 1.25×, read 0.1×).
const cost = (figures: RunFigures) => figures.uncachedTokens + 1.25 * figures.cacheWriteTokens + 0.1 * figures.cacheReadTokens;
const format = (value: number) => Math.round(value).toLocaleString('en-US');

async function measure(turns: readonly ScriptedUserTurn[], row: Row): Promise<{ figures: RunFigures; tools: WireTool[] }> {
  const server = await startCodingAgentServer(turns);
  const proxy = row.viaProxy ? await startProxy({ upstream: server.origin, plan: { volatile: 'auto' } }) : null;
  try {
    await row.run(proxy?.url ?? server.origin);
    await proxy?.settled();
    const sent = (server.bodies[0] as { tools?: WireTool[] } | undefined)?.tools ?? [];
    // The yardstick gets the tool JSON without the library's own markers (Session places its own).
    const tools = sent.map(({ cache_control: _marker, ...tool }: WireTool & { cache_control?: unknown }) => tool);
    return { figures: runFigures(server.verdicts, server.bodies), tools };
  } finally {
    await proxy?.close();
    await server.close();
  }
}

/** Cachet `Session` on the same script and the same tool JSON, by tool JSON. */
function sessionCostFor(turns: readonly ScriptedUserTurn[], tools: WireTool[], memo: Map<string, number>): number {
  const key = JSON.stringify(tools);
  let found = memo.get(key);
  if (found === undefined) {
    found = cost(runCodingAgentOnSession(turns, tools));
    memo.set(key, found);
  }
  return found;
}

const failures: string[] = [];
for (const [label, turns] of [
  ['one tool call per step', CODING_AGENT_TURNS],
  ['parallel tool calls', PARALLEL_CODING_AGENT_TURNS],
] as const) {
  const sessions = new Map<string, number>();
  const scriptSession = cost(runCodingAgentOnSession(turns));
  console.log(`\n### Scripted coding agent, ${label} — Cachet Session: ${format(scriptSession)} token units\n`);
  console.log(
    '| library | run | requests | read share | input cost (token units) | vs recipe | Session, same tools | vs Session | max markers | rejected |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { library, rows } of LIBRARIES) {
    let recipe = Number.NaN;
    for (const row of rows) {
      const { figures, tools } = await measure(turns, row);
      const total = cost(figures);
      const session = sessionCostFor(turns, tools, sessions);
      if (row.role === 'recipe') recipe = total;
      console.log(
        `| ${library} | ${row.name} | ${figures.requests} | ${(figures.readShare * 100).toFixed(1)}% | ${format(total)} | ${(total / recipe).toFixed(3)} | ${format(session)} | ${(total / session).toFixed(3)} | ${figures.maxMarkers} | ${figures.rejected} |`,
      );
      const bounded = row.role === 'recommended' || row.role === 'volatile';
      if (figures.rejected > 0 || (bounded && (total > recipe || total > 1.005 * session))) {
        failures.push(
          `${label}: ${library} ${row.name} (${(total / session).toFixed(3)} × Session, ${figures.rejected} rejected)`,
        );
      }
    }
  }
}
console.log(
  failures.length === 0
    ? '\nPASS: recommended and volatile runs ≤ recipe and ≤ 1.005 × Session, no rejected request'
    : `\nFAIL:\n${failures.join('\n')}`,
);
