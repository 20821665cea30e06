/**
 * Longest run of whitespace or of non-whitespace a BPE tokenizer is given at once. BPE merges
 * inside one pre-tokenized word cost more than linear time in its length (a 40,000-character
 * run without whitespace took 0.6-3.7 s in o200k_base); runs are cut at this length so
 * counting any text costs at most `length × MAX_RUN_CHARS` merge steps.
 */
export const MAX_RUN_CHARS = 1_000;

/**
 * The text in pieces a BPE tokenizer counts in linear total time: every run of whitespace or of
 * non-whitespace longer than `maxRun` characters is cut into `maxRun`-character parts (never
 * between the two halves of a surrogate pair). Ordinary text stays one piece, so its count is
 * exact; a cut may split a token, so the sum over cut pieces is an approximation (usually within
 * one token per cut) and `cut` says so.
 *
 * @example
 * boundedPieces('a'.repeat(2500), 1000).pieces.map((piece) => piece.length); // [1000, 1000, 500]
 * boundedPieces('two words').cut; // false
 */
export function boundedPieces(text: string, maxRun: number = MAX_RUN_CHARS): { pieces: string[]; cut: boolean } {
  if (text.length <= maxRun) return { pieces: [text], cut: false };
  const pieces: string[] = [];
  let pieceStart = 0;
  let runLength = 0;
  let runIsSpace = false;
  for (let index = 0; index < text.length; index++) {
    const isSpace = isWhitespace(text.charCodeAt(index));
    if (runLength > 0 && isSpace === runIsSpace) runLength++;
    else {
      runIsSpace = isSpace;
      runLength = 1;
    }
    if (runLength > maxRun && !isLowSurrogate(text.charCodeAt(index))) {
      pieces.push(text.slice(pieceStart, index));
      pieceStart = index;
      runLength = 1;
    }
  }
  pieces.push(text.slice(pieceStart));
  return { pieces, cut: pieces.length > 1 };
}

function isWhitespace(code: number): boolean {
  return (
    code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x3000 || (code >= 0x2000 && code <= 0x200a)
  );
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
