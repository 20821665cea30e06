/**
 * Child process of the durability test: writes events to a SQLite trace store as fast as it
 * can and prints `committed <seq>` after each one is committed, until it is killed.
 */
import { EventBus } from '../../events/event-bus.js';
import { openTraceStore } from '../open-trace-store.js';
import { recordEvents } from '../record-events.js';
import { durabilityPayload } from './durability-payload.js';

const path = process.argv[2];
if (!path) throw new Error('usage: durability-writer <db path>');
const store = await openTraceStore(path);
const bus = new EventBus();
const recorder = recordEvents(bus, store);
process.stdout.write('ready\n');
for (let seq = 0; ; seq += 1) {
  bus.emit('usage.recorded', 'durable', 1_000 + seq, durabilityPayload(seq));
  await recorder.flush();
  process.stdout.write(`committed ${seq}\n`);
}
