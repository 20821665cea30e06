import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { pickUsageObject, type UsageLocation } from './pick-usage-object.js';

const location: UsageLocation = {
  usageKey: 'usage',
  envelopeKey: 'message',
  countKeys: ['input_tokens', 'output_tokens'],
  responseExpected: 'a response',
  usageExpected: 'a usage object',
};

describe('pickUsageObject', () => {
  it('finds the usage on a response, in an envelope, or takes a bare usage object', () => {
    const usage = { input_tokens: 3 };
    expect(pickUsageObject({ usage }, location)).toBe(usage);
    expect(pickUsageObject({ message: { usage } }, location)).toBe(usage);
    expect(pickUsageObject(usage, location)).toBe(usage);
  });

  it('ignores the envelope when the location has none', () => {
    const { envelopeKey: _unused, ...withoutEnvelope } = location;
    expect(() => pickUsageObject({ message: { usage: {} } }, withoutEnvelope)).toThrow(ValidationError);
  });

  it('names what was wrong and where', () => {
    expect(() => pickUsageObject('text', location)).toThrow(/response.*a response/s);
    expect(() => pickUsageObject({ other: 1 }, location)).toThrow(/response\.usage.*a usage object/s);
  });
});
