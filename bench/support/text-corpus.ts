import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ContentKind } from '../../src/tokens/token-counter.js';

/** One sample of text with its true kind and which half of the corpus it belongs to. */
export interface CorpusSample {
  kind: ContentKind;
  source: string;
  text: string;
  /** Samples are split by a hash of their source path: ratios are fitted on `fit`, errors measured on `test`. */
  split: 'fit' | 'test';
}

const MAX_SAMPLE_CHARS = 12_000;
/** Keeps one large package from dominating the code half of the corpus. */
const MAX_CODE_FILES_PER_PACKAGE = 25;

function packageOf(path: string): string {
  const parts = path.split('/');
  return parts[1]?.startsWith('@') ? `${parts[1]}/${parts[2]}` : (parts[1] ?? path);
}

/**
 * A reproducible corpus built from files installed by `npm ci` (so a fresh clone measures the
 * same thing): English prose from package documentation (Markdown with code, tables, links and
 * badges removed), TypeScript source, and JSON files (package manifests, JSON Schemas).
 */
export function loadTextCorpus(root: string): CorpusSample[] {
  const modules = join(root, 'node_modules');
  const files = walk(modules, 6);
  const samples: CorpusSample[] = [];
  const codeFilesPerPackage = new Map<string, number>();
  for (const file of files) {
    const path = relative(root, file);
    if (/(^|\/)(CHANGELOG|HISTORY|CHANGES)[^/]*\.md$/i.test(path)) continue;
    if (path.endsWith('.md')) {
      const prose = proseOf(readFileSync(file, 'utf8'));
      if (prose.length >= 800) samples.push(sample('prose', path, prose));
    } else if (/\.(ts|js|mjs)$/.test(path) && !path.endsWith('.d.ts') && /\/(src|lib)\//.test(path)) {
      const code = readFileSync(file, 'utf8');
      const lines = code.split('\n').length;
      // Skip minified and generated bundles: they are not what agents read or write.
      if (code.length < 1_500 || code.length / lines > 100) continue;
      const owner = packageOf(path);
      const taken = codeFilesPerPackage.get(owner) ?? 0;
      if (taken >= MAX_CODE_FILES_PER_PACKAGE) continue;
      codeFilesPerPackage.set(owner, taken + 1);
      samples.push(sample('code', path, code));
    } else if (path.endsWith('.json') && !/tokenizer\.json$|package-lock\.json$|\.map$/.test(path)) {
      const size = statSync(file).size;
      if (size < 800 || size > 400_000) continue;
      const json = readFileSync(file, 'utf8');
      try {
        JSON.parse(json);
      } catch {
        continue;
      }
      samples.push(sample('json', path, json));
    }
  }
  return samples.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
}

function sample(kind: ContentKind, source: string, text: string): CorpusSample {
  const digest = createHash('sha256').update(source).digest();
  return { kind, source, text: text.slice(0, MAX_SAMPLE_CHARS), split: (digest[0] ?? 0) % 2 === 0 ? 'fit' : 'test' };
}

/** Paragraphs of running English text from a Markdown file. */
function proseOf(markdown: string): string {
  const withoutFences = markdown.replace(/```[\s\S]*?```/g, '').replace(/<[^>]+>/g, '');
  const paragraphs = withoutFences.split(/\n\s*\n/).filter((paragraph) => {
    const trimmed = paragraph.trim();
    if (trimmed.length < 120) return false;
    if (/^(#|\||!\[|\[!\[| {4}|\t|-{3})/.test(trimmed)) return false;
    const letters = trimmed.replace(/[^A-Za-z]/g, '').length;
    const symbols = trimmed.replace(/[A-Za-z0-9\s.,;:'"!?()-]/g, '').length;
    return letters / trimmed.length > 0.7 && symbols / trimmed.length < 0.03;
  });
  return paragraphs.map((paragraph) => paragraph.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '')).join('\n\n');
}

function walk(directory: string, depthLeft: number): string[] {
  if (depthLeft < 0) return [];
  let entries: string[];
  try {
    entries = readdirSync(directory).sort();
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    if (entry === '.bin' || entry === '.cache') continue;
    const path = join(directory, entry);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory()) files.push(...walk(path, depthLeft - 1));
    else files.push(path);
  }
  return files;
}
