/**
 * convertToAnthropic() (Anthropic wire body, breakpoint plan, padding plan, marker validation) for
 * the next request of synthetic sessions of 10, 100 and 1,000 turns, after assemble(). Reports
 * the median of the conversion alone and the body size. No target is asserted here; the figures
 * go into the report and docs.
 */
import { convertToAnthropic } from '../src/providers/anthropic/convert-request.js';
import { assemble } from '../src/session/assemble.js';
import { anthropicEstimator } from '../src/tokens/anthropic-estimator.js';
import { syntheticSession } from './support/synthetic-session.js';

const SIZES = [10, 100, 1_000];
const REPEATS = 100;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

for (const turns of SIZES) {
  const build = syntheticSession({ turns });
  const tokenCounter = anthropicEstimator();
  const request = assemble(build.session);
  let previous = convertToAnthropic(request, { tokenCounter }).metadata.cacheState;
  const samples: number[] = [];
  let bytes = 0;
  for (let run = 0; run < REPEATS; run++) {
    const started = performance.now();
    const result = convertToAnthropic(request, { tokenCounter, previous });
    samples.push(performance.now() - started);
    previous = result.metadata.cacheState;
    if (run === 0) bytes = JSON.stringify(result.body).length;
  }
  console.log(
    `turns=${turns} messages=${request.messages.length} blocks=${request.blocks.length} body=${(bytes / 1024).toFixed(0)} KiB ` +
      `convert median=${median(samples).toFixed(3)} ms`,
  );
}
