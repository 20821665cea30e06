import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CacheModel } from '../cache/models/cache-verdict.js';
import { EventBus } from '../events/event-bus.js';
import type { ProviderId } from '../providers/provider-id.js';
import { loadWorkload } from '../workloads/load-workload.js';
import type { Workload } from '../workloads/workload.js';
import type { StrategyName } from './strategy.js';

/**
 * Attack on the simulator normalising each request once (`JudgeContext.onNormalized`): the break
 * watch and the miss cause read the body the cache model normalised instead of normalising it
 * again. Every figure, miss cause and published event must be what the simulator gives when no
 * model tells its normalisation (each reader normalises the body itself, as before), on every
 * provider's cache model (Bedrock tells a Converse body's normalisation under its own format,
 * OpenRouter routes a model to Anthropic's or OpenAI's rules) and strategies whose
 * subagent calls, summaries and keep-alive pings judge bodies between requests.
 */

/** Whether the models hide their normalisation (each reader normalises for itself), and how many judges did. */
const plain = { on: false, silenced: 0 };

/** The simulator loaded afresh, its cache models wrapped (test workers keep modules loaded between files). */
async function wrappedSimulator(): Promise<typeof import('./simulate-workload.js')> {
  vi.resetModules();
  vi.doMock('../cache/models/create-cache-model.js', async (original) => {
    const actual = await original<typeof import('../cache/models/create-cache-model.js')>();
    const silenced = (model: CacheModel): CacheModel => ({
      rules: model.rules,
      judge: (body, context) => {
        if (!plain.on) return model.judge(body, context);
        plain.silenced++;
        const { onNormalized: _told, ...rest } = context;
        return model.judge(body, rest);
      },
      reset: () => model.reset(),
      ...(model.fork ? { fork: (options) => silenced(model.fork!(options)) } : {}),
    });
    const createCacheModel: typeof actual.createCacheModel = (...args) => silenced(actual.createCacheModel(...args));
    return { ...actual, createCacheModel };
  });
  return import('./simulate-workload.js');
}

let simulate: typeof import('./simulate-workload.js')['simulateWorkload'];
beforeAll(async () => {
  simulate = (await wrappedSimulator()).simulateWorkload;
});
afterAll(() => {
  vi.doUnmock('../cache/models/create-cache-model.js');
  vi.resetModules();
});

function run(workload: Workload, options: { provider?: ProviderId; model?: string; strategy: StrategyName }) {
  const bus = new EventBus();
  const events: unknown[] = [];
  bus.onAny((event) => events.push([event.type, event.sessionId, event.at, event.payload]));
  const result = simulate(workload, { ...options, bus, sessionId: 'attack' });
  // Read as JSON (every lazily built string read now), compared as values: a failure shows the differing fields.
  return JSON.parse(JSON.stringify({ result, events })) as unknown;
}

function both(workload: Workload, options: Parameters<typeof run>[1]): { once: unknown; twice: unknown } {
  plain.on = false;
  const once = run(workload, options);
  plain.on = true;
  const silenced = plain.silenced;
  const twice = run(workload, options);
  plain.on = false;
  // The plain run went through the wrapper (the simulator under test is the one loaded here).
  expect(plain.silenced).toBeGreaterThan(silenced);
  return { once, twice };
}

const shortened = (workload: Workload, turns: number): Workload => ({ ...workload, turns: workload.turns.slice(0, turns) });

describe('the simulator normalising once against each reader normalising for itself', () => {
  it('bundled workloads on their own providers: results and events equal', async () => {
    // Markers only where the client puts them, Cachet's (subagent calls, summaries, its own pings), a keep-alive pinger.
    const runs: Array<[string, StrategyName[]]> = [
      ['long-session-idle-gaps', ['naive', 'cachet', 'aider-keepalive']],
      ['claims-agent-bedrock', ['naive', 'cachet', 'aider-keepalive']],
      ['due-diligence-subagents', ['cachet', 'pi-warming']],
      ['data-analyst-deepseek', ['naive', 'cachet']],
      ['research-assistant-gemini', ['cachet']],
      ['cms-agent', ['cachet']],
    ];
    for (const [name, strategies] of runs) {
      const workload = shortened(await loadWorkload(name), 5);
      for (const strategy of strategies) {
        const { once, twice } = both(workload, { strategy });
        expect(JSON.stringify(once).length).toBeGreaterThan(1000);
        expect(once, `${name} ${strategy}`).toEqual(twice);
      }
    }
  });

  it('one coding workload on every provider whose cache model normalises (not the local engines): results and events equal', async () => {
    const workload = shortened(await loadWorkload('coding-agent'), 5);
    const runs: Array<{ provider: ProviderId; model?: string }> = [
      { provider: 'anthropic' },
      { provider: 'openai-chat' },
      { provider: 'openai-responses' },
      { provider: 'openrouter' },
      { provider: 'openrouter', model: 'openai/gpt-4.1' },
    ];
    for (const { provider, model } of runs) {
      for (const strategy of ['cachet'] as const) {
        const { once, twice } = both(workload, { provider, ...(model ? { model } : {}), strategy });
        expect(once, `${provider} ${model ?? ''} ${strategy}`).toEqual(twice);
      }
    }
  });
});
