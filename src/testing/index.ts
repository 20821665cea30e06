export type { StablePrefixOptions } from './assert-stable-prefix.js';
export { assertStablePrefix, PrefixInstabilityError } from './assert-stable-prefix.js';
export type { BlockBytes } from './block-bytes.js';
export { blockBytes } from './block-bytes.js';
export type { CommonPrefix, PrefixDivergence } from './longest-common-prefix.js';
export { longestCommonPrefix } from './longest-common-prefix.js';
export type { ZoneHashEntry, ZoneHashReport } from './zone-hash-report.js';
export { formatZoneHashReport, zoneHashReport } from './zone-hash-report.js';
