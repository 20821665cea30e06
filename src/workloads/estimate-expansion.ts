import type { JsonValue } from '../model/json.js';
import type { StepInput, SubagentStepInput, TurnInput, WorkloadFile } from './workload-schema.js';

/** Bytes a generated token takes as text (the filler writes 2.9 to 4.6 per token). */
const BYTES_PER_TOKEN = 5;
/** Fixed bytes of each generated text, whatever its size (a header, a first record). */
const FILLER_OVERHEAD_BYTES = 256;
/** Bytes a synthetic image takes while it is drawn (raw RGB rows) before compression. */
const BYTES_PER_PIXEL = 3;

/** Default ceiling on the estimated size of an expanded workload: 512 MiB. */
export const DEFAULT_MAX_EXPANSION_BYTES = 512 * 1024 * 1024;

export interface ExpansionEstimate {
  /** Estimated bytes of text and images the expanded workload holds. */
  bytes: number;
  /** The entry of `turns` (or the section) that contributes most, e.g. `turns[2].repeat`. */
  largestPath: string;
  largestBytes: number;
}

/**
 * Estimate, without expanding anything, how many bytes `expandWorkload` would create: generated
 * results and documents (`tokens` × 5 plus a fixed overhead), literal text, and synthetic images (raw pixels), with
 * every `repeat` multiplied out. Cheap (one walk of the file as written), so a workload whose
 * expansion would exhaust memory is refused before it is built.
 *
 * @example
 * estimateExpansion(file).bytes; // 2_400_000
 */
export function estimateExpansion(file: WorkloadFile): ExpansionEstimate {
  const parts: Array<[string, number]> = [];
  const skillBytes = new Map((file.skills ?? []).map((skill) => [skill.name, skill.body.length]));
  const documents = (file.session?.documents ?? []).reduce(
    (sum, document) => sum + (document.text?.length ?? generatedBytes(document.tokens)),
    0,
  );
  parts.push(['session.documents', documents]);
  parts.push(['skills', (file.skills ?? []).reduce((sum, skill) => sum + skill.body.length + skill.description.length, 0)]);
  file.turns.forEach((entry, index) => {
    if ('idle' in entry) return;
    if ('repeat' in entry) {
      const templates = entry.repeat.turns.map((turn) => turnBytes(turn, skillBytes));
      let bytes = 0;
      for (let iteration = 0; iteration < entry.repeat.count; iteration++) {
        bytes += templates[iteration % templates.length] as number;
      }
      parts.push([`turns[${index}].repeat`, bytes]);
      return;
    }
    parts.push([`turns[${index}]`, turnBytes(entry, skillBytes)]);
  });
  let total = 0;
  let largest: [string, number] = ['turns', 0];
  for (const part of parts) {
    total += part[1];
    if (part[1] > largest[1]) largest = part;
  }
  return { bytes: total, largestPath: largest[0], largestBytes: largest[1] };
}

function turnBytes(turn: TurnInput, skillBytes: ReadonlyMap<string, number>): number {
  let bytes = turn.user.length;
  for (const image of turn.images ?? []) bytes += image.width * image.height * BYTES_PER_PIXEL;
  for (const step of turn.steps) bytes += stepBytes(step, skillBytes);
  return bytes;
}

function stepBytes(step: StepInput | SubagentStepInput, skillBytes: ReadonlyMap<string, number>): number {
  if ('subagent' in step) return step.subagent.task.length;
  let bytes = (step.text?.length ?? 0) + (step.thinking?.length ?? 0);
  for (const call of step.toolCalls ?? []) {
    if ('skillLoad' in call) {
      bytes += skillBytes.get(call.skillLoad) ?? 0;
      continue;
    }
    bytes += inputBytes(call.input as JsonValue);
    const result = call.result;
    bytes += typeof result === 'string' ? result.length : (result.text?.length ?? generatedBytes(result.tokens));
  }
  return bytes;
}

/** Literal strings plus `$filler` sizes in a tool input (already depth-checked by the schema). */
function inputBytes(value: JsonValue): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 8;
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + inputBytes(item), 0);
  const filler = value.$filler;
  if (filler && typeof filler === 'object' && !Array.isArray(filler) && typeof filler.tokens === 'number') {
    return generatedBytes(Math.max(0, filler.tokens));
  }
  return Object.entries(value).reduce<number>((sum, [key, item]) => sum + key.length + inputBytes(item), 0);
}

function generatedBytes(tokens: number | undefined): number {
  return (tokens ?? 0) * BYTES_PER_TOKEN + FILLER_OVERHEAD_BYTES;
}
