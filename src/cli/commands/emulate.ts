import type { Command } from 'commander';
import type { EmulatedProvider } from '../../gateway/emulate/create-emulator-app.js';
import { loadReplyScript } from '../../gateway/emulate/reply-script.js';
import { oneOf } from '../cli-options.js';
import { HTTP_PEERS, loadWithPeers } from '../load-with-peers.js';
import { parsePort } from './parse-port.js';

export interface EmulateCommandOptions {
  provider: EmulatedProvider;
  port: number;
  host: string;
  script?: string;
  /** `--allow-remote`: required for a non-loopback `--host`. */
  allowRemote?: boolean;
}

const EMULATED: readonly EmulatedProvider[] = ['anthropic', 'openai', 'openrouter', 'all'];

const anthropicLine = (url: string) => `Anthropic:  ANTHROPIC_BASE_URL=${url}`;
const openAILine = (url: string) => `OpenAI:     OPENAI_BASE_URL=${url}/v1`;
const openRouterLine = (url: string) => `OpenRouter: base URL ${url}/api/v1`;
/** How to point each served API's clients at the emulator. */
const BASE_URL_LINES: Record<EmulatedProvider, ReadonlyArray<(url: string) => string>> = {
  anthropic: [anthropicLine],
  openai: [openAILine],
  openrouter: [openRouterLine],
  all: [anthropicLine, openAILine, openRouterLine],
};

/**
 * `cachet emulate`: a provider API on loopback that answers from Cachet's cache models, so a
 * harness's caching can be measured offline with no key.
 *
 * @example
 * cachet emulate --provider anthropic --port 8790
 * ANTHROPIC_BASE_URL=http://127.0.0.1:8790 ANTHROPIC_API_KEY=any my-agent
 */
export function registerEmulateCommand(program: Command): Command {
  return program
    .command('emulate')
    .description('serve a provider API offline, with usage from Cachet’s cache model for that provider')
    .option('--provider <provider>', `API to serve (${EMULATED.join(', ')})`, oneOf(EMULATED), 'all')
    .option('--port <n>', 'port to listen on (0 picks a free one)', parsePort, 8790)
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--allow-remote', 'accept a --host other machines can reach')
    .option('--script <file>', 'JSON reply script: {"replies":[{"text":"…","toolCalls":[{"name":"…","input":{}}]}]}')
    .action(async (options: EmulateCommandOptions) => {
      await runEmulate(options);
    });
}

/** Start the emulator and stop it on SIGINT/SIGTERM; resolves with the stop function once listening. */
export async function runEmulate(
  options: EmulateCommandOptions,
  output: (line: string) => void = console.log,
): Promise<() => Promise<void>> {
  const replies = options.script ? await loadReplyScript(options.script) : [];
  const { startEmulator } = await loadWithPeers(
    () => import('../../gateway/emulate/start-emulator.js'),
    HTTP_PEERS,
    'cachet emulate',
  );
  const emulator = await startEmulator({
    provider: options.provider,
    port: options.port,
    host: options.host,
    replies,
    ...(options.allowRemote ? { allowRemote: true } : {}),
    onWarning: (message) => process.stderr.write(`${message}\n`),
  });
  output(
    `cachet emulate: ${options.provider} on ${emulator.url}${options.script ? ` (script ${options.script}, ${replies.length} replies)` : ''}`,
  );
  for (const line of BASE_URL_LINES[options.provider]) output(`  ${line(emulator.url)}`);
  output('  clock: the emulator’s, or a request’s x-cachet-clock header (ms or ISO 8601)');
  return stopOnSignal(() => emulator.close());
}

/** Stop cleanly on SIGINT/SIGTERM; the returned function stops without a signal (tests). */
export function stopOnSignal(close: () => Promise<void>): () => Promise<void> {
  const stop = async () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await close();
  };
  const onSignal = () => {
    void stop().then(() => process.exit(0));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return stop;
}
