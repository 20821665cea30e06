import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../model/test-support/property-runs.js';
import { anthropicEstimator, DEFAULT_CHARS_PER_TOKEN } from './anthropic-estimator.js';
import { detectContentKind } from './content-kind.js';
import type { ContentKind } from './token-counter.js';

/**
 * The detector's symbol and indentation reading as it was written first, one loop over every
 * character: the regex counts and the newline search must classify every text the same way.
 * (Texts opening with `{` or `[` take the JSON check first, the same code either way.)
 */
function referenceKind(text: string): ContentKind {
  const sample = text.length > 4000 ? text.slice(0, 4000) : text;
  let symbols = 0;
  let letters = 0;
  let spaces = 0;
  for (let index = 0; index < sample.length; index++) {
    const code = sample.charCodeAt(index);
    if ('{}();=<>[]_$&|#*/'.includes(sample[index]!)) symbols++;
    else if (code === 0x20) spaces++;
    else if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) letters++;
  }
  if (sample.length === 0) return 'prose';
  let lines = 0;
  let indented = 0;
  let atLineStart = true;
  for (let index = 0; index < sample.length; index++) {
    const code = sample.charCodeAt(index);
    if (code === 0x0a) {
      lines++;
      atLineStart = true;
      continue;
    }
    if (atLineStart) {
      if ((code === 0x20 && sample.charCodeAt(index + 1) === 0x20) || code === 0x09) indented++;
      atLineStart = false;
    }
  }
  const indentation = lines === 0 ? 0 : indented / lines;
  const symbolDensity = symbols / sample.length;
  if (symbolDensity > 0.04 || (symbolDensity > 0.025 && indentation > 0.3)) return 'code';
  if (letters > 0 && spaces / letters > 0.5 && indentation > 0.5) return 'code';
  return 'prose';
}

/** Pieces that move each count across its threshold: symbols, spaces, indents, letters, wide and two-byte characters. */
const PIECES = [
  'a',
  'word',
  'Z',
  ' ',
  '  ',
  '    ',
  '\t',
  '\n',
  '\n  ',
  '\n\n',
  '{',
  '}',
  ';',
  '_',
  '$',
  '/',
  '*',
  '=',
  '(',
  '—',
  '漢字',
  'かな',
  '\ud83d\ude00',
  '\ud800',
  'é',
  '.',
  ',',
  '0',
];
const textOf = fc
  .array(fc.constantFrom(...PIECES), { maxLength: 400 })
  .map((pieces) => `x${pieces.join('')}`)
  .chain((text) => fc.constantFrom(text, text.repeat(12)));

/** The estimator's text count as first written: characters from U+2E80 on one token each, found by a loop. */
function referenceCount(text: string): number {
  let wide = 0;
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) >= 0x2e80) wide++;
  const kind = detectContentKind(text);
  const estimate = (text.length - wide) / DEFAULT_CHARS_PER_TOKEN[kind] + wide;
  return estimate > 0 ? Math.max(1, Math.round(estimate)) : 0;
}

describe('detectContentKind against one loop over every character', () => {
  it('classifies every text as the reference does (long ones by their first 4,000 characters)', () => {
    const examples: Array<[string]> = [
      ['x  a;\n  b;\n  c;\n'],
      ['x\n\n\n\ta b c d e f g\n    h i j k\n  l m'],
      [`x${'def f(a):\n    return a\n'.repeat(300)}`],
      [`x${'plain words and more plain words. '.repeat(200)}{};`],
      ['x漢字かな漢字 — “quoted” prose with a / slash'],
      ['x'],
      // Indentation at exactly one half, spaces over half the letters: prose (both tests are strict).
      ['x\n  a\n'],
    ];
    fc.assert(
      fc.property(textOf, (text) => {
        expect(detectContentKind(text)).toBe(referenceKind(text));
      }),
      { numRuns: propertyRuns(300), examples },
    );
  });
});

describe('anthropicEstimator.countText', () => {
  it('counts wide characters (from U+2E80, per code unit) as the loop over every character does', () => {
    const estimator = anthropicEstimator();
    const examples: Array<[string]> = [
      ['x漢字かな'],
      ['x\ud83d\ude00 emoji'],
      ['x\u2e7f\u2e80\uffff'],
      ['x plain ascii'],
      ['漢 and ten more words of plain text here'],
    ];
    fc.assert(
      fc.property(textOf, (text) => {
        expect(estimator.countText(text)).toBe(referenceCount(text));
      }),
      { numRuns: propertyRuns(200), examples },
    );
  });
});
