import type { MetricDefinition, MetricSample } from '../trace/fleet-metrics.js';

/** The content type Prometheus scrapes (text exposition format 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Samples in the Prometheus text exposition format: one `# HELP` and `# TYPE` per metric, then
 * its samples. Label values escape `\`, `"` and newlines as the format requires.
 *
 * @example
 * prometheusText(await store.fleetMetrics()); // '# HELP cachet_requests_total ...\n...'
 */
export function prometheusText(samples: readonly MetricSample[]): string {
  // By name: samples from the worker thread carry copies of the definitions, not the same objects.
  const byMetric = new Map<string, { metric: MetricDefinition; samples: MetricSample[] }>();
  for (const sample of samples) {
    const entry = byMetric.get(sample.metric.prometheus) ?? { metric: sample.metric, samples: [] };
    entry.samples.push(sample);
    byMetric.set(sample.metric.prometheus, entry);
  }
  const lines: string[] = [];
  for (const { metric, samples: list } of byMetric.values()) {
    lines.push(`# HELP ${metric.prometheus} ${metric.help.replaceAll('\\', '\\\\').replaceAll('\n', '\\n')}`);
    lines.push(`# TYPE ${metric.prometheus} ${metric.kind}`);
    for (const sample of list) lines.push(`${metric.prometheus}${labelText(sample.labels)} ${numberText(sample.value)}`);
  }
  return `${lines.join('\n')}\n`;
}

function labelText(labels: Record<string, string>): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  const escaped = (value: string) => value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
  return `{${entries.map(([name, value]) => `${name}="${escaped(value)}"`).join(',')}}`;
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(value);
}
