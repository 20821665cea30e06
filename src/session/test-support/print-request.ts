/**
 * Assemble the demo session and print the request's canonical JSON. Run in a separate
 * process by deterministic-bytes.test.ts: the bytes must not depend on the process.
 * `--reversed` builds every object with its keys in reverse insertion order.
 */
import { canonicalJson } from '../../model/canonical-json.js';
import type { JsonValue } from '../../model/json.js';
import { assemble } from '../assemble.js';
import { demoSession } from './demo-session.js';

const session = demoSession({
  keyOrder: process.argv.includes('--reversed') ? 'reversed' : 'natural',
  recall: { text: 'recall: build fixed last week' },
});
session.appendUserText('Fix it, please.');
process.stdout.write(canonicalJson(assemble(session) as unknown as JsonValue));
