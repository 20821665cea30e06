import { type BatchObservableCallback, type Meter, type MeterProvider, metrics, type Observable } from '@opentelemetry/api';
import { FLEET_METRICS, type MetricSample } from '../../trace/fleet-metrics.js';

export interface CachetMetricsOptions {
  /** Where the instruments are created; default: a meter named `cachet` from `meterProvider` or the global provider. */
  meter?: Meter;
  meterProvider?: MeterProvider;
  /** A store read that failed during a collection (that collection then reports nothing). Default: ignored. */
  onError?: (error: unknown) => void;
}

export interface CachetMetricsObserver {
  /** Unregister the callback: later collections no longer read the store. */
  stop(): void;
}

/**
 * The same figures `GET /metrics` serves, as OpenTelemetry observable instruments: counters
 * (`cachet.requests`, `cachet.tokens`, `cachet.cost`, `cachet.cache.breaks`...) and gauges
 * (`cachet.cache.hit_ratio`, `cachet.saved`...), attributes `provider`, `model` (and `kind`,
 * `cause`). Each collection reads the store once (`fleetMetrics()`, summed in SQL); depends only
 * on `@opentelemetry/api`, so your MeterProvider and exporter decide where they go.
 *
 * @example
 * const observer = observeCachetMetrics(await openTraceStore());
 * // later: observer.stop();
 */
export function observeCachetMetrics(
  source: { fleetMetrics(): Promise<MetricSample[]> },
  options: CachetMetricsOptions = {},
): CachetMetricsObserver {
  const meter = options.meter ?? (options.meterProvider ?? metrics).getMeter('cachet');
  // Keyed by name: samples answered by a worker thread carry copies of the definitions.
  const instruments = new Map<string, Observable>();
  for (const metric of Object.values(FLEET_METRICS)) {
    const settings = { description: metric.help, unit: metric.unit };
    instruments.set(
      metric.otel,
      metric.kind === 'counter'
        ? meter.createObservableCounter(metric.otel, settings)
        : meter.createObservableGauge(metric.otel, settings),
    );
  }
  const observables = [...instruments.values()];
  const callback: BatchObservableCallback = async (result) => {
    let samples: MetricSample[];
    try {
      samples = await source.fleetMetrics();
    } catch (error) {
      options.onError?.(error);
      return;
    }
    for (const sample of samples) {
      const instrument = instruments.get(sample.metric.otel);
      if (instrument) result.observe(instrument, sample.value, sample.labels);
    }
  };
  meter.addBatchObservableCallback(callback, observables);
  return { stop: () => meter.removeBatchObservableCallback(callback, observables) };
}
