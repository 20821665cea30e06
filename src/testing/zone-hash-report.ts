import { EMPTY_PREFIX_HASH, sha256 } from '../model/hash.js';
import type { CanonicalRequest, Zone } from '../model/request.js';
import { blockBytes, utf8Length } from './block-bytes.js';

export interface ZoneHashEntry {
  /** Blocks in the zone. */
  blocks: number;
  /** Canonical bytes of the zone. */
  bytes: number;
  /** SHA-256 over the zone's block hashes alone: equal when the zone's content is equal, whatever precedes it. */
  zoneHash: string;
  /** Cumulative prefix hash at the zone's last block: equal only when everything up to the zone's end is equal. */
  prefixHash: string;
}

export type ZoneHashReport = Record<Zone, ZoneHashEntry>;

const ZONES: readonly Zone[] = ['global', 'session', 'history', 'tail'];

/**
 * A per-zone summary of a request's hashes, for snapshots and diffs in users' own tests: log
 * it, or compare two reports to see which zone changed.
 *
 * @example
 * const report = zoneHashReport(assemble(session));
 * expect(report.global.zoneHash).toBe(previousReport.global.zoneHash);
 */
export function zoneHashReport(request: CanonicalRequest): ZoneHashReport {
  const blocks = blockBytes(request);
  const report = {} as ZoneHashReport;
  let prefixHash = EMPTY_PREFIX_HASH;
  for (const zone of ZONES) {
    const inZone = blocks.filter((block) => block.zone === zone);
    const last = inZone.at(-1);
    if (last) prefixHash = last.prefixHash;
    report[zone] = {
      blocks: inZone.length,
      bytes: inZone.reduce((total, block) => total + utf8Length(block.text), 0),
      zoneHash: sha256(inZone.map((block) => block.hash).join(':')),
      prefixHash,
    };
  }
  return report;
}

/** The report as an aligned text table (zone, blocks, bytes, short hashes). */
export function formatZoneHashReport(report: ZoneHashReport): string {
  const lines = ['zone     blocks      bytes  zone hash     prefix hash'];
  for (const zone of ZONES) {
    const entry = report[zone];
    lines.push(
      `${zone.padEnd(8)} ${String(entry.blocks).padStart(6)} ${String(entry.bytes).padStart(10)}  ${entry.zoneHash.slice(0, 12)}  ${entry.prefixHash.slice(0, 12)}`,
    );
  }
  return lines.join('\n');
}
