import { describe, expect, it } from 'vitest';
import { boundedPieces, MAX_RUN_CHARS } from './bounded-pieces.js';
import { exactTokenCounter } from './exact-token-counter.js';
import { encodeOpenAI, openAITokenCounter } from './openai-token-counter.js';

const SIXTY_KB = 60 * 1024;

describe('boundedPieces', () => {
  it('leaves ordinary text whole', () => {
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(2_000);
    expect(boundedPieces(prose)).toEqual({ pieces: [prose], cut: false });
  });

  it('cuts a whitespace-free run into bounded pieces that join back to the text', () => {
    const run = 'x'.repeat(2_500);
    const { pieces, cut } = boundedPieces(`head ${run} tail`, 1_000);
    expect(cut).toBe(true);
    expect(pieces.join('')).toBe(`head ${run} tail`);
    expect(pieces.map((piece) => piece.length)).toEqual([1_005, 1_000, 505]);
  });

  it('cuts long whitespace runs too (a run of spaces is one pre-tokenized word)', () => {
    const { pieces } = boundedPieces(' '.repeat(3_000), 1_000);
    expect(pieces.map((piece) => piece.length)).toEqual([1_000, 1_000, 1_000]);
  });

  it('never separates the halves of a surrogate pair', () => {
    const emoji = '😀'.repeat(1_500);
    const { pieces } = boundedPieces(emoji, 1_001);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(piece.codePointAt(0)).toBe(0x1f600);
      expect(piece.length % 2).toBe(0);
    }
  });
});

describe('exact counters on hostile text', () => {
  it('counts 60 KB without whitespace in bounded pieces, marked inexact', () => {
    const seen: number[] = [];
    const counter = exactTokenCounter('spy', (text) => {
      seen.push(text.length);
      return Math.ceil(text.length / 4);
    });
    const hostile = 'a'.repeat(SIXTY_KB);
    const measured = counter.measureText!(hostile);
    expect(measured.exact).toBe(false);
    expect(counter.approximated).toBe(1);
    expect(seen.reduce((sum, length) => sum + length, 0)).toBe(SIXTY_KB);
    expect(Math.max(...seen)).toBeLessThanOrEqual(MAX_RUN_CHARS + 1);
    // Quadratic work over the pieces stays linear in the text: at most length × bound.
    const work = seen.reduce((sum, length) => sum + length * length, 0);
    expect(work).toBeLessThanOrEqual(SIXTY_KB * (MAX_RUN_CHARS + 1));
  });

  it('counts ordinary text with one exact call', () => {
    const seen: number[] = [];
    const counter = exactTokenCounter('spy', (text) => {
      seen.push(text.length);
      return 1;
    });
    const prose = 'word '.repeat(20_000);
    expect(counter.measureText!(prose)).toEqual({ tokens: 1, exact: true });
    expect(seen).toEqual([prose.length]);
    expect(counter.approximated).toBe(0);
  });

  it('o200k_base: a cut run counts within one token per cut of the whole-run count', () => {
    const counter = openAITokenCounter('o200k_base');
    const run = 'qwertyuiopasdfghjklzxcvbnm'.repeat(200); // 5,200 characters, 5 cuts
    const before = counter.approximated ?? 0;
    const approximate = counter.measureText!(run);
    expect(approximate.exact).toBe(false);
    expect(counter.approximated).toBe(before + 1);
    // encodeOpenAI tokenizes the whole run (no cuts): the exact figure the approximation is held to.
    const whole = encodeOpenAI(run).length;
    expect(Math.abs(approximate.tokens - whole)).toBeLessThanOrEqual(5);
  });
});
