import type {
  ContentBlock,
  ConverseCommandInput,
  InferenceConfiguration,
  Message,
  SystemContentBlock,
  Tool,
  ToolChoice,
} from '@aws-sdk/client-bedrock-runtime';
import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import { ValidationError } from '../../model/errors.js';
import type { BlockRecord, CanonicalRequest, GenerationParams, TailItem, Zone } from '../../model/request.js';
import { assertNever } from '../../model/validate.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import type { ConversionMetadata, ConversionResult } from '../adapter.js';
import type { AnthropicCacheState, BreakpointSlot, PlannedBreakpoint, ZoneTtls } from '../anthropic/place-breakpoints.js';
import { charsPerTokenCounter } from '../shared/chars-token-counter.js';
import { toolsWithDeferred } from '../shared/deferred-tool-placement.js';
import { tailNeedsUserMessage } from '../shared/tail-user-message.js';
import { convertBlockToBedrock, convertToolToBedrock } from './convert-blocks.js';
import { type BedrockModelRow, isBedrockClaude, resolveBedrockModel } from './models.js';
import type { BedrockOptions } from './options.js';
import { bedrockCachePoint, planBedrockCheckpoints } from './place-breakpoints.js';

export interface BedrockConversionMetadata extends ConversionMetadata {
  breakpoints: PlannedBreakpoint[];
  /** Pass back as `options.previous` on the session's next request (lookback guard). */
  cacheState: AnthropicCacheState;
  /** The model row the plan used (minimum per checkpoint, fields, TTLs, prefix cap). */
  model: BedrockModelRow;
}

export interface BedrockConversionResult extends ConversionResult<ConverseCommandInput> {
  metadata: BedrockConversionMetadata;
}

const DEFAULT_SESSION_MIN_TOKENS = 1024;

/** A wire block and the array it lives in, so a `cachePoint` can be inserted right after it. */
interface Placed {
  container: unknown[];
  element: unknown;
}

/**
 * Convert a canonical request into `ConverseCommandInput` for Amazon Bedrock. Pure: the same
 * request and options give the same body, and nothing is sent anywhere.
 *
 * Layout: `toolConfig.tools` (global, then discovered), `system` (global, then session
 * segments), `messages` (session static, then history) with the turn tail as text blocks at
 * the end of the final user message. Checkpoints follow `planBedrockCheckpoints`: each is a
 * `{ cachePoint }` block right after the block it closes, in the field that block is in.
 *
 * @example
 * const { body, metadata } = convertToBedrock(assemble(session), { previous: lastState });
 * const output = await new BedrockRuntimeClient({}).send(new ConverseCommand(body));
 * lastState = metadata.cacheState;
 */
export function convertToBedrock(canonical: CanonicalRequest, options: BedrockOptions = {}): BedrockConversionResult {
  const request = { ...canonical, tools: toolsWithDeferred(canonical, options.deferredTools ?? 'append') };
  const counter = options.tokenCounter ?? charsPerTokenCounter();
  const row = resolveBedrockModel(request.model, options.models);
  const mode = options.breakpoints ?? 'plan';
  if (mode !== 'plan' && mode !== 'none') {
    throw new ValidationError('options.breakpoints', '"plan" or "none"', `got ${JSON.stringify(mode)}`);
  }
  const ttl: ZoneTtls = {
    global: options.ttl?.global ?? '5m',
    session: options.ttl?.session ?? '5m',
    history: options.ttl?.history ?? '5m',
  };
  const warnings: AdapterWarning[] = [];
  const records = new Map<string, BlockRecord>(request.blocks.map((record) => [record.path, record]));
  const slots: BreakpointSlot[] = [];
  const placed: Placed[] = [];
  const add = (container: unknown[], element: unknown, slot: Omit<BreakpointSlot, 'position'>) => {
    container.push(element);
    slots.push({ ...slot, position: slots.length });
    placed.push({ container, element });
  };

  const tools: Tool[] = [];
  request.tools.forEach((tool, index) => {
    const path = `tools[${index}]`;
    const zone: Zone = records.get(path)?.zone ?? (index < request.layout.globalToolCount ? 'global' : 'session');
    add(tools, convertToolToBedrock(tool), {
      path,
      zone,
      messageIndex: null,
      prefixHash: records.get(path)?.prefixHash ?? null,
      cacheable: row.cacheFields.includes('tools'),
      tokens: counter.countBlock(tool),
    });
  });

  const system: SystemContentBlock[] = [];
  request.system.forEach((segment, index) => {
    const path = `system[${index}]`;
    // Converse rejects empty text blocks.
    if (segment.text.length === 0) return;
    add(
      system,
      { text: segment.text },
      {
        path,
        zone: segment.zone,
        messageIndex: null,
        prefixHash: records.get(path)?.prefixHash ?? null,
        cacheable: row.cacheFields.includes('system'),
        tokens: counter.countBlock(segment),
      },
    );
  });

  const messages = convertMessages(request, row, counter, records, add, warnings);
  if (messages.length === 0) throw new ValidationError('messages', 'at least one message or turn-tail item');

  const lastAssistant = request.messages.findLastIndex((message) => message.role === 'assistant');
  const plan = planBedrockCheckpoints({
    slots,
    mode,
    ttl,
    row,
    sessionMinTokens: options.sessionBreakpointMinTokens ?? DEFAULT_SESSION_MIN_TOKENS,
    previous: options.previous,
    lastAssistantMessageIndex: lastAssistant >= 0 ? lastAssistant : null,
    markers: options.markers ?? [],
    ...(options.finalRequest ? { finalRequest: true } : {}),
  });
  warnings.push(...plan.warnings);
  // From the last checkpoint back, so earlier insertions never shift the ones still to come.
  for (const checkpoint of [...plan.checkpoints].sort((left, right) => right.position - left.position)) {
    const target = placed[checkpoint.position];
    if (!target) continue;
    target.container.splice(target.container.indexOf(target.element) + 1, 0, bedrockCachePoint(checkpoint.ttl));
  }

  const body: ConverseCommandInput = { modelId: request.model, messages };
  if (system.length > 0) body.system = system;
  body.inferenceConfig = inferenceConfig(request.params);
  if (tools.length > 0) {
    const toolChoice = convertToolChoice(request.params, warnings);
    body.toolConfig = toolChoice ? { tools, toolChoice } : { tools };
  }
  const additional = additionalFields(request, warnings);
  if (additional) body.additionalModelRequestFields = additional;
  return { body, metadata: { breakpoints: plan.checkpoints, padding: null, warnings, cacheState: plan.cacheState, model: row } };
}

type Add = (container: unknown[], element: unknown, slot: Omit<BreakpointSlot, 'position'>) => void;

function convertMessages(
  request: CanonicalRequest,
  row: BedrockModelRow,
  counter: TokenCounter,
  records: ReadonlyMap<string, BlockRecord>,
  add: Add,
  warnings: AdapterWarning[],
): Message[] {
  const messages: Message[] = [];
  const last = request.messages.length - 1;
  const tail = request.tail.items;
  const cacheable = row.cacheFields.includes('messages');
  request.messages.forEach((message, messageIndex) => {
    const zone: Zone = messageIndex < request.layout.sessionMessageCount ? 'session' : 'history';
    const content: ContentBlock[] = [];
    const withTail = messageIndex === last && message.role === 'user' ? tail : [];
    message.content.forEach((block, blockIndex) => {
      const path = `messages[${messageIndex}].content[${blockIndex}]`;
      const wire = convertBlockToBedrock(block, path);
      if (wire === null) {
        warnings.push(
          adapterWarning(
            'thinking-not-sent',
            `${path}: unsigned thinking block dropped (Claude requires its signature back)`,
            path,
          ),
        );
        return;
      }
      const reasoning = block.type === 'thinking' || block.type === 'redacted_thinking';
      const emptyText = block.type === 'text' && block.text.length === 0;
      if (emptyText) return;
      add(content, wire, {
        path,
        zone,
        messageIndex,
        prefixHash: records.get(path)?.prefixHash ?? null,
        cacheable: cacheable && !reasoning,
        tokens: counter.countBlock(block),
      });
    });
    addTail(withTail, tail, content, counter, add);
    if (content.length === 0) {
      throw new ValidationError(
        `messages[${messageIndex}].content`,
        'at least one block Converse accepts',
        'only unsigned thinking or empty text',
      );
    }
    messages.push({ role: message.role, content });
  });
  if (tailNeedsUserMessage(request.messages, tail.length, warnings)) {
    const content: ContentBlock[] = [];
    addTail(tail, tail, content, counter, add);
    if (content.length > 0) messages.push({ role: 'user', content });
  }
  return messages;
}

/** Tail items as text blocks after everything else; never cacheable (an entry ending there is never read). */
function addTail(
  items: readonly TailItem[],
  all: readonly TailItem[],
  content: ContentBlock[],
  counter: TokenCounter,
  add: Add,
): void {
  for (const item of items) {
    if (item.text.length === 0) continue;
    add(
      content,
      { text: item.text },
      {
        path: `tail[${all.indexOf(item)}]`,
        zone: 'tail',
        messageIndex: null,
        prefixHash: null,
        cacheable: false,
        tokens: counter.countBlock(item),
      },
    );
  }
}

function inferenceConfig(params: GenerationParams): InferenceConfiguration {
  const config: InferenceConfiguration = { maxTokens: params.maxTokens };
  if (params.temperature !== undefined) config.temperature = params.temperature;
  if (params.topP !== undefined) config.topP = params.topP;
  if (params.stopSequences && params.stopSequences.length > 0) config.stopSequences = [...params.stopSequences];
  return config;
}

function convertToolChoice(params: GenerationParams, warnings: AdapterWarning[]): ToolChoice | undefined {
  if (params.parallelToolCalls === false)
    warnings.push(
      adapterWarning('parallel-tool-calls-dropped', 'params.parallelToolCalls dropped: Converse has no switch for it'),
    );
  const choice = params.toolChoice;
  if (!choice) return undefined;
  switch (choice.type) {
    case 'auto':
      return { auto: {} };
    case 'any':
      return { any: {} };
    case 'tool':
      return { tool: { name: choice.name } };
    case 'none':
      // Removing the tools would change the cached prefix; keep them and say so.
      warnings.push(
        adapterWarning(
          'tool-choice-dropped',
          'params.toolChoice "none" dropped: Converse has no such choice (tools kept to protect the cache)',
        ),
      );
      return undefined;
    default:
      return assertNever(choice);
  }
}

/** Claude's thinking settings travel in `additionalModelRequestFields`; other models get none. */
function additionalFields(
  request: CanonicalRequest,
  warnings: AdapterWarning[],
): ConverseCommandInput['additionalModelRequestFields'] {
  const thinking = request.params.thinking;
  if (request.params.effort) warnings.push(adapterWarning('effort-dropped', 'params.effort dropped: not mapped for Converse'));
  if (!thinking) return undefined;
  if (!isBedrockClaude(request.model)) {
    warnings.push(
      adapterWarning('thinking-dropped', 'params.thinking dropped: only Claude models take a thinking setting through Converse'),
    );
    return undefined;
  }
  switch (thinking.type) {
    case 'disabled':
      return { thinking: { type: 'disabled' } };
    case 'enabled':
      return { thinking: { type: 'enabled', budget_tokens: thinking.budgetTokens } };
    case 'adaptive':
      return { thinking: { type: 'adaptive' } };
    default:
      return assertNever(thinking);
  }
}
