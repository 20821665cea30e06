import type { BlockCore } from './block-core-memo.js';
import { defaultCountable } from './wire-countable.js';
import type { WireTtl, WireUnit } from './wire-unit.js';

/** A block's unit from its core; the key order of `unit()` (units are compared and reported field by field). */
export function unitOf(
  zone: WireUnit['zone'],
  path: string,
  core: BlockCore,
  role: string | null,
  messageIndex: number | null,
  ttl: WireTtl | null,
): WireUnit {
  return {
    zone,
    path,
    text: core.text,
    role,
    messageIndex,
    tokenText: core.tokenText,
    tokenKind: core.tokenKind,
    countable: core.countable,
    fixedTokens: core.fixedTokens,
    block: true,
    kind: core.kind,
    breakpoint: ttl,
  };
}

export function paramUnit(path: string, text: string): WireUnit {
  return unit('params', path, text, null, null, '', 'prose', 'param', null, false);
}

export function unit(
  zone: WireUnit['zone'],
  path: string,
  text: string,
  role: string | null,
  messageIndex: number | null,
  tokenText: string,
  tokenKind: WireUnit['tokenKind'],
  kind: WireUnit['kind'],
  breakpoint: WireTtl | null,
  block = true,
): WireUnit {
  const countable = defaultCountable(kind, tokenText, tokenKind);
  return { zone, path, text, role, messageIndex, tokenText, tokenKind, countable, fixedTokens: 0, block, kind, breakpoint };
}
