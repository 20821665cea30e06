import type { Command } from 'commander';
import { causeSentence } from '../../cache/break/diff-wire-bodies.js';
import { findPrice } from '../../cache/pricing.js';
import {
  type AnalyzedConversation,
  type AnalyzedRequest,
  type CaptureAnalysis,
  CaptureAnalyzer,
} from '../../gateway/analyze/analyze-capture.js';
import { CaptureError, readCaptureLines } from '../../gateway/analyze/read-capture.js';
import { CachetError } from '../../model/errors.js';
import { providerEntry } from '../../providers/registry.js';
import { isHashedBody } from '../../trace/store-content.js';
import { MODELS_FILE_OPTION } from '../cli-options.js';
import { formatCount, formatCountOf, formatPercent, formatTable, formatUsd } from '../format-table.js';
import { runLogAnalysis } from './import.js';
import { parseCount } from './parse-port.js';

export interface AnalyzeCommandOptions {
  json?: boolean;
  /** Requests listed per conversation in the text report [20]; --json always has all. */
  limit?: number;
  /** Read a harness's session logs (claude-code, codex, opencode, pi) instead of a capture. */
  from?: string;
}

export interface AnalyzeOutput {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Exit code for an unreadable capture (the CLI's convention for bad input). */
export const ANALYZE_BAD_INPUT_EXIT_CODE = 2;

/**
 * `cachet analyze <capture> [--json]`: judge a captured sequence of wire bodies offline.
 *
 * @example
 * cachet analyze capture.jsonl
 * cachet analyze capture.jsonl --json | jq '.conversations[0].topCauses'
 */
export function registerAnalyzeCommand(program: Command): Command {
  return program
    .command('analyze')
    .description('judge a capture (cachet proxy --capture, or JSONL of {at, body, usage?}) offline')
    .argument('<capture>', 'JSONL file, one request per line (with --from: a harness log file or directory)')
    .option('--from <harness>', 'read session logs of claude-code, codex, opencode or pi (as cachet import does)')
    .option('--json', 'print the whole analysis as one JSON object')
    .option(MODELS_FILE_OPTION.flags, MODELS_FILE_OPTION.description)
    .option('--limit <n>', 'requests listed per conversation (0 or more)', parseCount, 20)
    .action(async (capture: string, options: AnalyzeCommandOptions) => {
      process.exitCode = await runAnalyze(capture, options);
    });
}

/** Analyse and print; returns the exit code (0 done, 2 bad input, 1 other failure). */
export async function runAnalyze(
  path: string,
  options: AnalyzeCommandOptions = {},
  output: AnalyzeOutput = { out: (line) => console.log(line), err: (line) => console.error(line) },
): Promise<number> {
  if (options.from !== undefined) return runLogAnalysis(options.from, path, options.json === true, output);
  const limit = options.limit ?? 20;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    output.err(`cachet analyze: --limit: expected a whole number from 0, got ${limit}`);
    return ANALYZE_BAD_INPUT_EXIT_CODE;
  }
  let analysis: CaptureAnalysis;
  let hashed: boolean;
  try {
    ({ analysis, hashed } = await analyzeFile(path, options.json ? Number.POSITIVE_INFINITY : limit));
  } catch (error) {
    output.err(`cachet analyze: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof CachetError ? ANALYZE_BAD_INPUT_EXIT_CODE : 1;
  }
  // `cachet proxy --capture` keeps hashes by default: the captured usage stands, a modelled plan does not.
  if (hashed) output.err(hashedCaptureWarning(path));
  for (const warning of unpricedWarnings(analysis)) output.err(warning);
  if (options.json) {
    output.out(JSON.stringify(hashed ? withoutPlan(analysis) : analysis));
    return 0;
  }
  for (const line of formatAnalysis(analysis, limit, !hashed)) output.out(line);
  return 0;
}

/**
 * Stream the capture through the analyzer line by line (memory bounded by the conversations,
 * not the file), keeping `keep` request rows per conversation. A request the analysis
 * refuses (a Gemini body, an unknown provider) is reported with its file and line.
 */
async function analyzeFile(path: string, keep: number): Promise<{ analysis: CaptureAnalysis; hashed: boolean }> {
  const analyzer = new CaptureAnalyzer({ keepRequestsPerConversation: keep });
  let hashed: boolean | undefined;
  for await (const { request, line } of readCaptureLines(path)) {
    // One proxy writes a capture in one --store-content mode: the first body tells.
    hashed ??= isHashedBody(request.body);
    try {
      // The body is held until the next request of its conversation: its history items are the reader's, shared with it.
      analyzer.add(request);
    } catch (error) {
      if (error instanceof CachetError && !(error instanceof CaptureError)) throw new CaptureError(path, line, error.message);
      throw error;
    }
  }
  return { analysis: analyzer.finish(), hashed: hashed === true };
}

/**
 * One line per model without a price (stderr): its costs read $0 in the report, which means
 * unknown, not free. Local engines cost nothing per token and are not warned about.
 */
export function unpricedWarnings(analysis: CaptureAnalysis): string[] {
  const warned = new Set<string>();
  const warnings: string[] = [];
  for (const { provider, model } of analysis.conversations) {
    const key = `${provider}\u0000${model}`;
    if (warned.has(key)) continue;
    warned.add(key);
    if (findPrice(provider, model) !== null || providerEntry(provider).route(model).rules === 'local') continue;
    warnings.push(
      `warning: no price is known for model "${model}" on ${provider}: its costs read $0 in this report, which means unknown, not free (check the model id, or give its prices with --models-file).`,
    );
  }
  return warnings;
}

/** Said on stderr (so `--json` stays one object) when the capture's bodies hold hashes instead of text. */
export function hashedCaptureWarning(path: string): string {
  return (
    `warning: ${path} holds hashes of the prompt text, not the text (cachet proxy --store-content hashes, the default): ` +
    `costs and read shares from the captured usage stand; Cachet's plan cannot be judged on hashes and is reported as not judged ` +
    `(null under --json). Capture with --store-content full to judge the plan.`
  );
}

/** Says this instead of the plan's figures when the capture holds hashes: a plan modelled on them would read as a saving that does not exist. */
const PLAN_NOT_JUDGED = 'not judged (hash-only capture)';

/**
 * The `--json` report of a hash-only capture: the plan's figures are null, never the ones modelled
 * on hashes (each hash counts a few tokens, so the plan read as a large saving).
 */
export function withoutPlan(analysis: CaptureAnalysis): unknown {
  return {
    ...analysis,
    planNotJudged: PLAN_NOT_JUDGED,
    conversations: analysis.conversations.map((conversation) => ({
      ...conversation,
      plannedCostUsd: null,
      plannedReadShare: null,
      clientCostUsd: null,
      clientReadShare: null,
    })),
    totals: { ...analysis.totals, plannedCostUsd: null, clientCostUsd: null },
  };
}

/**
 * Cachet's plan for one conversation. A capture of `cachet proxy --plan` was sent planned: its cost
 * is the plan's, set against what the client's own bodies would have cost.
 */
function planSentence(conversation: AnalyzedConversation, planJudged: boolean): string {
  if (!planJudged) return `Cachet's plan ${PLAN_NOT_JUDGED}`;
  if (conversation.clientCostUsd !== null && conversation.clientReadShare !== null) {
    return `sent with Cachet's plan (cachet proxy --plan); the client's own bodies ${formatPercent(conversation.clientReadShare)} read, ${formatUsd(conversation.clientCostUsd)}`;
  }
  return `with Cachet's plan ${formatPercent(conversation.plannedReadShare)} read, ${formatUsd(conversation.plannedCostUsd)}`;
}

/** The text report: totals, then per conversation its figures, requests and top causes. */
function formatAnalysis(analysis: CaptureAnalysis, limit: number, planJudged: boolean): string[] {
  const { totals } = analysis;
  const lines = [
    `${formatCountOf(totals.requests, 'request')} in ${formatCountOf(analysis.conversations.length, 'conversation')}: read share ${formatPercent(totals.readShare)}, cost ${formatUsd(totals.costUsd)} (no cache ${formatUsd(totals.uncachedCostUsd)}, Cachet's plan ${planJudged ? formatUsd(totals.plannedCostUsd) : PLAN_NOT_JUDGED}${planJudged && totals.clientCostUsd !== null ? `, the client's own bodies ${formatUsd(totals.clientCostUsd)}` : ''})`,
  ];
  // Grouped once: filtering every request per conversation made the report quadratic.
  const byConversation = new Map<string, AnalyzedRequest[]>();
  for (const request of analysis.requests) {
    const list = byConversation.get(request.conversation);
    if (list) list.push(request);
    else byConversation.set(request.conversation, [request]);
  }
  for (const conversation of analysis.conversations) {
    lines.push('');
    lines.push(
      `conversation ${conversation.id} (${conversation.provider}, ${conversation.model}): ${formatCountOf(conversation.requests, 'request')}, read share ${formatPercent(conversation.readShare)}, cost ${formatUsd(conversation.costUsd)}; ${planSentence(conversation, planJudged)}`,
    );
    const requests = byConversation.get(conversation.id) ?? [];
    const rows = requests.slice(0, limit).map((request) => [
      // Numbered from 1, as a person counts the capture's requests (`index` in --json is from 0).
      String(request.index + 1),
      formatCount(request.readTokens),
      formatCount(request.writeTokens),
      formatCount(request.uncachedTokens),
      formatUsd(request.costUsd),
      request.missCause ?? '',
      request.changed
        ? `${request.changed.path} @${request.changed.byteOffset}${request.changed.cacheImpact > 0 ? '' : ' (not cached)'}`
        : '',
    ]);
    lines.push(formatTable(['#', 'read', 'written', 'uncached', 'cost', 'miss cause', 'first change'], rows));
    if (conversation.requests > limit) lines.push(`… ${conversation.requests - limit} more (--limit, or --json for all)`);
    for (const cause of conversation.topCauses.slice(0, 3)) {
      lines.push(
        `  ${cause.cause} ×${cause.count}, ${formatCount(cause.missedTokens)} tokens missed: ${cause.cause === 'no-breakpoint' ? 'no breakpoint covers the history' : causeSentence(cause.cause)}.`,
      );
      lines.push(`    → ${cause.advice}`);
    }
    const agreement = conversation.causeAgreement;
    if (agreement.diagnosed > 0) {
      const pairs = agreement.disagreements.map((pair) => `Cachet ${pair.cause} / provider ${pair.serverType} ×${pair.count}`);
      lines.push(
        `  provider diagnostics: ${agreement.agree} of ${agreement.diagnosed} misses agree (${formatPercent(agreement.agreementRate ?? 0)})${pairs.length > 0 ? `; ${pairs.join(', ')}` : ''}`,
      );
    }
  }
  return lines;
}
