import { assertNever } from '../model/validate.js';
import { SeededRandom } from './seeded-random.js';
import type { FILLER_KINDS } from './workload-schema.js';

export type FillerKind = (typeof FILLER_KINDS)[number];

/**
 * Characters per token by kind, measured with o200k_base on samples of each generator's
 * output; sizes in workload files are approximate tokens, turned into characters with these.
 */
const CHARS_PER_TOKEN: Record<FillerKind, number> = {
  code: 3.4,
  json: 3.1,
  log: 3.2,
  prose: 4.6,
  diff: 3.3,
  html: 3.2,
  csv: 2.9,
};

/**
 * Deterministic, realistic-looking tool output of about `tokens` tokens: source code, JSON
 * records, log lines, prose, diffs, HTML or CSV. The same seed always gives the same bytes.
 *
 * @example
 * generateFiller({ kind: 'log', tokens: 800, seed: 'coding-agent/t3/s1/c0' });
 */
export function generateFiller(options: { kind: FillerKind; tokens: number; seed: string; header?: string }): string {
  const random = new SeededRandom(options.seed);
  const targetChars = Math.round(options.tokens * CHARS_PER_TOKEN[options.kind]);
  const lines: string[] = options.header ? [options.header] : [];
  let length = options.header ? options.header.length + 1 : 0;
  const generator = lineGenerator(options.kind, random);
  while (length < targetChars) {
    const line = generator();
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

function lineGenerator(kind: FillerKind, random: SeededRandom): () => string {
  switch (kind) {
    case 'code':
      return codeLines(random);
    case 'json':
      return jsonLines(random);
    case 'log':
      return () => logLine(random);
    case 'prose':
      return () => proseSentence(random);
    case 'diff':
      return diffLines(random);
    case 'html':
      return htmlLines(random);
    case 'csv':
      return csvLines(random);
    default:
      return assertNever(kind);
  }
}

const NOUNS = [
  'order',
  'invoice',
  'customer',
  'session',
  'payment',
  'shipment',
  'account',
  'report',
  'token',
  'webhook',
  'cart',
  'refund',
];
const VERBS = [
  'load',
  'validate',
  'normalize',
  'persist',
  'resolve',
  'fetch',
  'apply',
  'render',
  'merge',
  'schedule',
  'retry',
  'parse',
];
const TYPES = ['string', 'number', 'boolean', 'Date', 'string[]', 'Record<string, unknown>'];
const FIELDS = [
  'id',
  'status',
  'createdAt',
  'updatedAt',
  'ownerId',
  'amountCents',
  'currency',
  'region',
  'attempts',
  'tags',
  'version',
];

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function codeLines(random: SeededRandom): () => string {
  const queue: string[] = [];
  return () => {
    if (queue.length === 0) {
      const noun = random.pick(NOUNS);
      const verb = random.pick(VERBS);
      const type = capitalize(noun);
      if (random.next() < 0.35) {
        queue.push(`export interface ${type}${capitalize(random.pick(['record', 'input', 'snapshot', 'event']))} {`);
        const count = random.int(3, 7);
        for (let index = 0; index < count; index++) {
          queue.push(`  ${random.pick(FIELDS)}${random.next() < 0.3 ? '?' : ''}: ${random.pick(TYPES)};`);
        }
        queue.push('}', '');
      } else {
        queue.push(`export async function ${verb}${type}(${noun}Id: string, options: ${type}Options = {}): Promise<${type}> {`);
        queue.push(`  const existing = await repository.find${type}(${noun}Id);`);
        queue.push(`  if (!existing) throw new NotFoundError('${noun}', ${noun}Id);`);
        const count = random.int(2, 6);
        for (let index = 0; index < count; index++) {
          const field = random.pick(FIELDS);
          queue.push(
            random.pick([
              `  if (options.${field} !== undefined) existing.${field} = options.${field};`,
              `  const ${field}Changed = existing.${field} !== previous?.${field};`,
              `  logger.debug({ ${noun}Id, ${field}: existing.${field} }, '${verb} ${noun}');`,
              `  await events.publish('${noun}.${verb}d', { id: existing.id, ${field}: existing.${field} });`,
              `  for (const item of existing.items ?? []) totals.${field} += item.${field} ?? 0;`,
            ]),
          );
        }
        queue.push(`  return repository.save${type}(existing);`, '}', '');
      }
    }
    return queue.shift() as string;
  };
}

function jsonLines(random: SeededRandom): () => string {
  let first = true;
  let id = random.int(1000, 9000);
  return () => {
    const prefix = first ? '[' : ' ';
    first = false;
    id += random.int(1, 17);
    const record = {
      id: `${random.pick(NOUNS)}_${id}`,
      status: random.pick(['active', 'pending', 'archived', 'failed', 'draft', 'published']),
      updatedAt: `2026-0${random.int(1, 9)}-${String(random.int(10, 28))}T${String(random.int(10, 23))}:${String(random.int(10, 59))}:00Z`,
      owner: random.pick(['mara.lindqvist', 'dev.okafor', 'j.tanaka', 'p.moreau', 'sofia.reyes']),
      amountCents: random.int(100, 250_000),
      tags: [random.pick(['priority', 'eu', 'us', 'beta', 'migrated']), random.pick(['q3', 'q4', 'legacy', 'v2'])],
    };
    return `${prefix}${JSON.stringify(record)},`;
  };
}

function logLine(random: SeededRandom): string {
  const time = `2026-05-14T${String(random.int(10, 23))}:${String(random.int(10, 59))}:${String(random.int(10, 59))}.${String(random.int(100, 999))}Z`;
  const level = random.pick(['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR']);
  const component = random.pick(['scheduler', 'http', 'db.pool', 'worker', 'auth', 'cache', 'billing']);
  const message = random.pick([
    `GET /api/${random.pick(NOUNS)}s/${random.int(1000, 99999)} ${random.pick([200, 200, 304, 404, 500])} ${random.int(3, 900)}ms`,
    `job ${random.int(1000, 9999)} (${random.pick(VERBS)}-${random.pick(NOUNS)}) completed in ${random.int(20, 4000)}ms`,
    `pool stats active=${random.int(1, 20)} idle=${random.int(0, 10)} waiting=${random.int(0, 5)}`,
    `retrying ${random.pick(NOUNS)} ${random.hex(8)} attempt=${random.int(1, 5)} backoff=${random.int(100, 3200)}ms`,
    `token refresh for tenant ${random.hex(6)} ok (expires in ${random.int(300, 3600)}s)`,
    `slow query ${random.int(200, 3000)}ms: SELECT * FROM ${random.pick(NOUNS)}s WHERE ${random.pick(FIELDS)} = $1`,
  ]);
  return `${time} ${level.padEnd(5)} [${component}] ${message}`;
}

const SUBJECTS = [
  'The migration',
  'The release checklist',
  'Our on-call rotation',
  'The billing service',
  'The new onboarding flow',
  'The search index',
];
const PREDICATES = [
  'needs a rollback plan before it is scheduled',
  'depends on the feature flag being enabled for every tenant',
  'was reviewed by the platform team last sprint',
  'reduces p95 latency when the cache is warm',
  'should be documented in the runbook with the exact commands',
  'keeps the old endpoint alive until all clients have moved',
];
const CLAUSES = [
  'because traffic peaks on Mondays',
  'as agreed in the design review',
  'unless the vendor changes its quota',
  'after the data backfill completes',
];

function proseSentence(random: SeededRandom): string {
  const sentence = `${random.pick(SUBJECTS)} ${random.pick(PREDICATES)}${random.next() < 0.5 ? `, ${random.pick(CLAUSES)}` : ''}.`;
  return random.next() < 0.2 ? `${sentence}\n` : sentence;
}

function diffLines(random: SeededRandom): () => string {
  const queue: string[] = [];
  let line = random.int(10, 60);
  return () => {
    if (queue.length === 0) {
      const noun = random.pick(NOUNS);
      queue.push(`@@ -${line},7 +${line},8 @@ export class ${capitalize(noun)}Service {`);
      queue.push(`   private readonly ${noun}s = new Map<string, ${capitalize(noun)}>();`);
      queue.push(`-  ${random.pick(VERBS)}(${noun}: ${capitalize(noun)}) { this.${noun}s.set(${noun}.id, ${noun}); }`);
      queue.push(`+  ${random.pick(VERBS)}(${noun}: ${capitalize(noun)}): void {`);
      queue.push(`+    if (this.${noun}s.has(${noun}.id)) throw new ConflictError(${noun}.id);`);
      queue.push(`+    this.${noun}s.set(${noun}.id, ${noun});`);
      queue.push('+  }');
      line += random.int(15, 80);
    }
    return queue.shift() as string;
  };
}

function htmlLines(random: SeededRandom): () => string {
  return () => {
    const section = random.pick(['hero', 'features', 'pricing', 'testimonials', 'faq', 'footer']);
    return random.pick([
      `<section class="${section} container" data-block-id="blk_${random.hex(8)}">`,
      `  <h2 class="${section}__title">${random.pick(SUBJECTS)}</h2>`,
      `  <p class="${section}__lead">${random.pick(PREDICATES)}.</p>`,
      `  <img src="/uploads/${random.pick(NOUNS)}-${random.int(1, 40)}.webp" alt="${random.pick(NOUNS)} illustration" loading="lazy">`,
      `  <a class="button button--primary" href="/${random.pick(NOUNS)}s">Learn more</a>`,
      '</section>',
    ]);
  };
}

function csvLines(random: SeededRandom): () => string {
  let header = true;
  return () => {
    if (header) {
      header = false;
      return 'date,region,sku,units,revenue_eur,returns';
    }
    return [
      `2026-0${random.int(1, 9)}-${random.int(10, 28)}`,
      random.pick(['DE', 'FR', 'NL', 'SE', 'ES', 'IT']),
      `SKU-${random.int(10000, 99999)}`,
      random.int(1, 400),
      (random.int(500, 900_000) / 100).toFixed(2),
      random.int(0, 12),
    ].join(',');
  };
}
