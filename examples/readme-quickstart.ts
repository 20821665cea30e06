import Anthropic from '@anthropic-ai/sdk';
import { currentTimeProvider, EventBus, prepareRequest, pricedBy, recordUsage, Session, tailProvider } from '../src/index.js';
import { anthropicAdapter } from '../src/providers/anthropic/index.js';
import { openTraceStore, recordEvents } from '../src/trace/index.js';

/**
 * The README's five-minute example, kept here so the type checker guards it (imports point at
 * the source instead of the package name). Running it calls the Anthropic API: it needs
 * ANTHROPIC_API_KEY, and exits with a message otherwise.
 */
if (!process.env.ANTHROPIC_API_KEY) {
  console.log('skipped: set ANTHROPIC_API_KEY to run the README example against the API');
  process.exit(0);
}

const bus = new EventBus();
const recorder = recordEvents(bus, await openTraceStore()); // SQLite at .cachet/traces.db

let recall = '';
const session = new Session({
  id: 'session-42',
  model: 'claude-sonnet-5',
  bus,
  // Global static zone: the same bytes for every session of your deployment.
  global: {
    tools: [
      {
        name: 'read_file',
        description: 'Read a file.',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ],
    system: [{ label: 'persona', text: 'You are a careful coding agent.' }],
  },
  // Session static zone: fixed when the session starts.
  sessionStatic: { system: [{ label: 'project', text: 'Project: demo-app.' }] },
  // Turn tail: evaluated per request, never persisted, never in the cached prefix.
  tail: [currentTimeProvider(), tailProvider('memory-recall', () => recall)],
});

session.appendUserText('What does src/index.ts export?');
recall = '[memory-recall] The user prefers short answers.';

const prepared = prepareRequest(session, anthropicAdapter, { turn: session.turn, step: 0 });
// prepared.body is a MessageCreateParamsNonStreaming with Cachet's breakpoints and the tail
// inside the final user message; prepared.metadata says which breakpoints and why.
const reply = await new Anthropic().messages.create(prepared.body);
recordUsage(session, anthropicAdapter.parseUsage(reply), { turn: session.turn, step: 0, price: pricedBy('anthropic') });
await recorder.stop();
