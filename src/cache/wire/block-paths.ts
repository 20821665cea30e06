/**
 * The path of a message's content block, `messages[4].content[1]`, one string per position for
 * every body and conversation: each unit of history held its own (a template literal makes a
 * tree of several concatenated strings), about a tenth of what a conversation's units kept.
 * Positions past the bounds, or once `MAX_INTERNED` paths are kept, are written afresh.
 */
const MAX_INTERNED = 65_536;
const MAX_BLOCK_INDEX = 64;
const interned: string[][] = [];
let internedCount = 0;

export function messageBlockPath(messageIndex: number, blockIndex: number): string {
  const row = interned[messageIndex];
  const known = row?.[blockIndex];
  if (known !== undefined) return known;
  const path = `messages[${messageIndex}].content[${blockIndex}]`;
  if (internedCount >= MAX_INTERNED || blockIndex >= MAX_BLOCK_INDEX || messageIndex >= MAX_INTERNED) return path;
  // Flat, so the kept string is one object (a concatenation keeps its parts).
  const flat = path.split('').join('');
  if (row === undefined) {
    for (let index = interned.length; index < messageIndex; index++) interned.push([]);
    interned[messageIndex] = [];
  }
  interned[messageIndex]![blockIndex] = flat;
  internedCount++;
  return flat;
}
