import { ValidationError } from '../../model/errors.js';

/** Where a provider's usage object sits in a response, a stream event or on its own. */
export interface UsageLocation {
  /** Key of the usage object on a response: `usage`, `usageMetadata`. */
  usageKey: string;
  /** Key of an envelope that may carry the usage object instead (a stream event's `message` or `metadata`). */
  envelopeKey?: string;
  /** Keys whose presence marks the value itself as a bare usage object. */
  countKeys: readonly string[];
  /** What the value should have been, for the error when it is not an object. */
  responseExpected: string;
  /** What the usage object should have been, for the error when none is found. */
  usageExpected: string;
}

/** The usage object of a response, a stream event carrying one, or a bare usage object. */
export function pickUsageObject(response: unknown, location: UsageLocation): unknown {
  if (typeof response !== 'object' || response === null) {
    throw new ValidationError('response', location.responseExpected);
  }
  const record = response as Record<string, unknown>;
  const usage = record[location.usageKey];
  if (typeof usage === 'object' && usage !== null) return usage;
  const envelope = location.envelopeKey === undefined ? undefined : record[location.envelopeKey];
  if (typeof envelope === 'object' && envelope !== null) {
    const envelopeUsage = (envelope as Record<string, unknown>)[location.usageKey];
    if (typeof envelopeUsage === 'object' && envelopeUsage !== null) return envelopeUsage;
  }
  if (location.countKeys.some((key) => key in record)) return record;
  throw new ValidationError(`response.${location.usageKey}`, location.usageExpected);
}
