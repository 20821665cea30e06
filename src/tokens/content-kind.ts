import type { ContentKind } from './token-counter.js';

/** How much of a long text the detector looks at: enough to classify, cheap on megabyte inputs. */
const SAMPLE_CHARS = 4_000;

/** The characters source code uses and prose does not: brackets, operators, `_ $ & | # * /`. */
const CODE_SYMBOLS = /[{}()[\];=<>_$&|#*/]/g;

/**
 * Classify text as prose, code or JSON from a sample of its start, at most 4,000 characters. JSON is recognised by its delimiters and a successful parse of short
 * texts (or a key/value density check on long ones); code by the density of the symbols
 * and line shapes that programming languages use and prose does not.
 *
 * @example
 * detectContentKind('{"path": "a.ts"}'); // 'json'
 * detectContentKind('export function f(a: number) {\n  return a + 1;\n}'); // 'code'
 * detectContentKind('The quick brown fox jumps over the lazy dog.'); // 'prose'
 */
export function detectContentKind(text: string): ContentKind {
  const sample = text.length > SAMPLE_CHARS ? text.slice(0, SAMPLE_CHARS) : text;
  const trimmed = sample.trimStart();
  const first = trimmed.charCodeAt(0);
  if (first === 0x7b /* { */ || first === 0x5b /* [ */) {
    if (looksLikeJson(text, sample)) return 'json';
  }
  if (sample.length === 0) return 'prose';
  // Counted by the regex engine (one native pass, no match objects): a loop over every
  // character was most of what the estimator spent on each new text.
  const symbols = sample.length - sample.replace(CODE_SYMBOLS, '').length;
  const symbolDensity = symbols / sample.length;
  // Prose has almost no brackets or operators (under 2% in English text); source code has 6-15%.
  // Indentation (runs of spaces) also marks code; prose averages one space per 5-6 letters.
  const indentation = countIndentedLines(sample);
  if (symbolDensity > 0.04 || (symbolDensity > 0.025 && indentation > 0.3)) return 'code';
  if (indentation > 0.5 && spacesPerLetter(sample) > 0.5) return 'code';
  return 'prose';
}

/** Spaces per ASCII letter (0 without letters): read only for a mostly indented sample. */
function spacesPerLetter(sample: string): number {
  let letters = 0;
  let spaces = 0;
  for (let index = 0; index < sample.length; index++) {
    const code = sample.charCodeAt(index);
    if (code === 0x20) spaces++;
    else if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) letters++;
  }
  return letters > 0 ? spaces / letters : 0;
}

function looksLikeJson(text: string, sample: string): boolean {
  // A JSON text opening with { or [ closes with } or ] (then only JSON whitespace): anything else
  // would only throw, and a thrown SyntaxError costs more than reading the whole text.
  if (text.length <= SAMPLE_CHARS && closesLikeJson(text)) {
    try {
      JSON.parse(text);
      return true;
    } catch {
      // Not parseable as a whole: fall through to the density check (JSON lines, truncated output).
    }
  }
  // Pretty-printed JSON: nearly every line opens with a key, a bracket or a value.
  const lines = sample.split('\n').filter((line) => line.trim().length > 0);
  const structural = lines.filter((line) => /^\s*("|[{}[\]]|-?\d|true|false|null)/.test(line)).length;
  if (lines.length >= 3 && structural / lines.length > 0.8) return true;
  // Minified JSON: a dense run of quoted keys.
  let keys = 0;
  for (let index = sample.indexOf('":'); index >= 0; index = sample.indexOf('":', index + 2)) keys++;
  return keys / sample.length > 0.01;
}

/** The last character that is not JSON whitespace (space, tab, LF, CR) is } or ]. */
function closesLikeJson(text: string): boolean {
  let index = text.length - 1;
  for (; index >= 0; index--) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) break;
  }
  const last = text.charCodeAt(index);
  return last === 0x7d /* } */ || last === 0x5d /* ] */;
}

/** Lines that open with two spaces or a tab, per newline (0 without one). */
function countIndentedLines(sample: string): number {
  let lines = 0;
  let indented = 0;
  // `start` opens a line (the sample's start, or just past a newline; an empty line's newline opens the next).
  let start = 0;
  for (;;) {
    const code = sample.charCodeAt(start);
    if ((code === 0x20 && sample.charCodeAt(start + 1) === 0x20) || code === 0x09) indented++;
    const newline = sample.indexOf('\n', start);
    if (newline < 0) break;
    lines++;
    start = newline + 1;
  }
  return lines === 0 ? 0 : indented / lines;
}
