import type { BatchObservableCallback, Meter, Observable } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { FLEET_METRICS, type MetricSample } from '../../trace/fleet-metrics.js';
import { openTraceStore } from '../../trace/open-trace-store.js';
import { fleetEvents } from '../../trace/test-support/fleet-events.js';
import { observeCachetMetrics } from './observe-cachet-metrics.js';

/** A Meter that records what is created and registered, and collects on demand (the API's interface, no SDK). */
function recordingMeter() {
  const created: Array<{ kind: string; name: string; unit?: string }> = [];
  const callbacks = new Set<BatchObservableCallback>();
  const instrument = (kind: string) => (name: string, options?: { unit?: string }) => {
    created.push({ kind, name, unit: options?.unit });
    return { name } as unknown as Observable;
  };
  const meter = {
    createObservableCounter: instrument('counter'),
    createObservableGauge: instrument('gauge'),
    addBatchObservableCallback: (callback: BatchObservableCallback) => callbacks.add(callback),
    removeBatchObservableCallback: (callback: BatchObservableCallback) => callbacks.delete(callback),
  } as unknown as Meter;
  const collect = async () => {
    const observed: Array<{ name: string; value: number; attributes: Record<string, unknown> }> = [];
    for (const callback of callbacks) {
      await callback({
        observe: (observable, value, attributes = {}) =>
          observed.push({ name: (observable as unknown as { name: string }).name, value, attributes }),
      });
    }
    return observed;
  };
  return { meter, created, collect, callbacks };
}

describe('observeCachetMetrics', () => {
  it('observes the store’s metrics as OTel counters and gauges, the same figures as /metrics', async () => {
    const store = await openTraceStore(':memory:');
    await store.appendBatch([...fleetEvents({ sessions: 6, requestsPerSession: 5 })]);
    const { meter, created, collect, callbacks } = recordingMeter();
    const observer = observeCachetMetrics(store, { meter });
    expect(created).toContainEqual({ kind: 'counter', name: 'cachet.tokens', unit: '{token}' });
    expect(created).toContainEqual({ kind: 'gauge', name: 'cachet.cache.hit_ratio', unit: '1' });
    const observed = await collect();
    const expected = await store.fleetMetrics();
    expect(observed).toEqual(
      expected.map((sample) => ({ name: sample.metric.otel, value: sample.value, attributes: sample.labels })),
    );
    expect(observed.filter((entry) => entry.name === 'cachet.cache.breaks').length).toBeGreaterThan(0);
    observer.stop();
    expect(callbacks.size).toBe(0);
    await store.close();
  });

  it('reports a failing store to onError and observes nothing that collection', async () => {
    const { meter, collect } = recordingMeter();
    const errors: unknown[] = [];
    const failing = { fleetMetrics: async (): Promise<MetricSample[]> => Promise.reject(new Error('store down')) };
    observeCachetMetrics(failing, { meter, onError: (error) => errors.push(error) });
    expect(await collect()).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(Object.keys(FLEET_METRICS)).toHaveLength(10);
  });
});
