import { type Document, isMap, isScalar, LineCounter, parseDocument, visit } from 'yaml';
import { z } from 'zod';
import { sha256 } from '../model/hash.js';
import type { JsonObject } from '../model/json.js';
import { jsonObjectSchema } from '../model/schemas.js';
import type { Skill } from './skill.js';
import { SkillFormatError } from './skill-errors.js';
import { SKILL_DESCRIPTION_MAX_LENGTH, skillNameProblem } from './skill-name.js';

export interface ParseSkillOptions {
  /** Path used in errors and kept as `Skill.file`. */
  file: string;
  /** Name of the directory holding SKILL.md; the standard requires `name` to match it. */
  directoryName?: string;
  /** Label of the root the file came from (`Skill.source`). */
  source?: string;
}

const frontMatterSchema = z
  .object({
    name: z.string(),
    description: z.string().min(1).max(SKILL_DESCRIPTION_MAX_LENGTH),
    license: z.string().min(1).optional(),
    compatibility: z.string().min(1).max(500).optional(),
    'allowed-tools': z.union([z.string(), z.array(z.string().min(1))]).optional(),
    metadata: jsonObjectSchema.optional(),
  })
  .strict();

const FENCE = /^---[ \t]*$/;
/** Aliases expanded at most this many times (an alias bomb expands exponentially). */
const MAX_YAML_ALIAS_COUNT = 100;

/**
 * Parse the text of one SKILL.md. Every error is a `SkillFormatError` naming the file and the
 * 1-based line of the offending key or value (the opening `---` when a required key is missing).
 *
 * @example
 * const skill = parseSkillFile('---\nname: pdf-tools\ndescription: Work with PDFs.\n---\n# PDF\n...', {
 *   file: 'skills/pdf-tools/SKILL.md',
 *   directoryName: 'pdf-tools',
 * });
 * skill.version; // sha256 of the file text
 */
export function parseSkillFile(text: string, options: ParseSkillOptions): Skill {
  const { file } = options;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? '')) {
    throw new SkillFormatError(file, 1, 'expected YAML front matter opening with "---" on the first line');
  }
  const closing = lines.findIndex((line, index) => index > 0 && FENCE.test(line));
  if (closing < 0) throw new SkillFormatError(file, 1, 'front matter opened with "---" is never closed by a "---" line');
  // Line n of the YAML source is line n + 1 of the file (the opening fence is line 1).
  const yamlSource = lines.slice(1, closing).join('\n');
  const lineCounter = new LineCounter();
  const document = parseDocument(yamlSource, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const firstError = document.errors[0];
  if (firstError) {
    const offset = firstError.code === 'MISSING_CHAR' ? openingOffset(document, firstError.pos[0]) : firstError.pos[0];
    const line = lineCounter.linePos(offset).line + 1;
    throw new SkillFormatError(file, line, `invalid YAML front matter: ${firstLine(firstError.message)}`);
  }
  if (!isMap(document.contents)) {
    throw new SkillFormatError(file, 1, 'front matter must be a YAML mapping with at least "name" and "description"');
  }
  const lineOf = (path: ReadonlyArray<PropertyKey>): number => nodeLine(document, lineCounter, path);
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (error) {
    // yaml throws a ReferenceError for an alias bomb ("Excessive alias count ..."): a format error here.
    throw new SkillFormatError(file, 1, `invalid YAML front matter: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = frontMatterSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
    throw new SkillFormatError(file, lineOf(path), describeIssue(issue));
  }
  const front = parsed.data;
  const nameProblem = skillNameProblem(front.name);
  if (nameProblem) throw new SkillFormatError(file, lineOf(['name']), `name "${front.name}" ${nameProblem}`);
  if (options.directoryName !== undefined && options.directoryName !== front.name) {
    throw new SkillFormatError(
      file,
      lineOf(['name']),
      `name "${front.name}" must match its directory name "${options.directoryName}"`,
    );
  }
  const metadata = (front.metadata ?? {}) as JsonObject;
  const triggers = readTriggers(metadata.triggers, () => lineOf(['metadata', 'triggers']), file);
  const allowed = front['allowed-tools'];
  return {
    name: front.name,
    description: front.description,
    ...(front.license !== undefined ? { license: front.license } : {}),
    allowedTools: typeof allowed === 'string' ? allowed.split(/\s+/).filter(Boolean) : (allowed ?? []),
    metadata,
    triggers,
    body: lines
      .slice(closing + 1)
      .join('\n')
      .trim(),
    version: sha256(text),
    file,
    source: options.source ?? file,
  };
}

function readTriggers(value: unknown, line: () => number, file: string): string[] {
  if (value === undefined) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  throw new SkillFormatError(file, line(), 'metadata.triggers must be a string or a list of strings');
}

/** Line of the key at `path` (or of its deepest existing parent), in file coordinates. */
function nodeLine(document: Document, lineCounter: LineCounter, path: ReadonlyArray<PropertyKey>): number {
  for (let depth = path.length; depth > 0; depth--) {
    const parentPath = path.slice(0, depth - 1) as unknown[];
    const parent = parentPath.length === 0 ? document.contents : document.getIn(parentPath, true);
    if (!isMap(parent)) continue;
    const key = path[depth - 1];
    const pair = parent.items.find((item) => (item.key as { value?: unknown } | null)?.value === key);
    const range = (pair?.key as { range?: [number, number, number] } | null)?.range;
    if (range) return lineCounter.linePos(range[0]).line + 1;
  }
  return 1;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join('.') || 'front matter';
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? `"${field}" is required` : `"${field}" must be a ${issue.expected}`;
    case 'unrecognized_keys':
      return `unknown front matter key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')} (the standard allows name, description, license, compatibility, allowed-tools, metadata; put custom fields under metadata)`;
    case 'too_small':
      return `"${field}" must not be empty`;
    case 'too_big':
      return `"${field}" must be at most ${String(issue.maximum)} characters`;
    default:
      return `"${field}": ${issue.message}`;
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/**
 * Where to point for a YAML error. Most errors sit where the problem is; an unterminated quoted
 * scalar is reported at the end of the text, so point at the start of the node that contains
 * the error position instead (the line where the quote opens).
 */
function openingOffset(document: Document, offset: number): number {
  let best = offset;
  visit(document, (_key, node) => {
    if (!isScalar(node) || !node.range) return;
    const [from, , to] = node.range;
    if (from < offset && offset <= to + 1) best = Math.min(best, from);
  });
  return best;
}
