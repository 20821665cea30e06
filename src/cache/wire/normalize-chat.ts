import type { ProviderId } from '../../providers/adapter.js';
import { providerEntry } from '../../providers/registry.js';
import { DEFAULT_MEDIA_TOKENS } from '../../tokens/media-token-estimates.js';
import { routedAnthropicKeyParams } from './cache-key-params.js';
import { isRecord, type JsonRecord, jsonText, stringField, withoutKeys } from './json-helpers.js';
import { cacheControlTtl, wireParamUnit, wireUnit } from './normalize-anthropic.js';
import { toolCountable, toolUseCountable } from './wire-countable.js';
import type { NormalizedWireBody, WireTtl, WireUnit } from './wire-unit.js';

const MARKER_KEYS = ['cache_control', 'prompt_cache_breakpoint'] as const;

/**
 * Chat Completions parameters that change the prefix from its first byte (they are rendered
 * before the tools and messages, or decide where the request is routed):
 * developers.openai.com prompt-caching guide.
 */
const PREFIX_PARAMS = ['reasoning_effort', 'parallel_tool_calls', 'response_format', 'prompt_cache_key'] as const;

/**
 * True when an OpenRouter model id routes to Anthropic (`anthropic/claude-...`).
 * @deprecated ask the registry: `providerEntry('openrouter').route(model).rules === 'anthropic'`.
 */
export function isAnthropicRoute(model: string): boolean {
  return providerEntry('openrouter').route(model).rules === 'anthropic';
}

/**
 * Units of a Chat Completions body (OpenAI, OpenRouter, OpenAI-compatible servers): the
 * prefix-shaping parameters, tools, leading system/developer messages, then every message
 * part, tool call and reasoning text. Markers (`cache_control`, `prompt_cache_breakpoint`)
 * are recorded as breakpoints and left out of the compared bytes.
 */
export function normalizeChatBody(body: JsonRecord, format: ProviderId): NormalizedWireBody {
  const model = stringField(body, 'model') ?? '';
  const entry = providerEntry(format);
  // A chat-shaped body on a route that follows Anthropic's rules (OpenRouter's anthropic/*).
  const route = entry.route(model);
  const anthropicRoute = route.rules === 'anthropic';
  const upstreamModel = route.upstreamModel;
  const units: WireUnit[] = [wireParamUnit('model', jsonText(body.model))];
  const prefixParams: readonly string[] = [...PREFIX_PARAMS, ...entry.prefixParams(model)];
  for (const key of prefixParams) units.push(wireParamUnit(key, jsonText(body[key])));
  const tools = Array.isArray(body.tools) ? body.tools : [];
  tools.forEach((tool, index) => {
    const record = isRecord(tool) ? tool : {};
    const text = jsonText(withoutKeys(record, MARKER_KEYS));
    units.push({
      ...wireUnit('tools', `tools[${index}]`, text, null, null, text, 'json', 'tool', markerTtl(record)),
      countable: toolCountable(record),
    });
  });
  const messages = Array.isArray(body.messages) ? body.messages : [];
  let leadingSystem = true;
  let messageParamsPlaced = false;
  messages.forEach((message, messageIndex) => {
    const record = isRecord(message) ? message : {};
    const role = stringField(record, 'role') ?? 'user';
    leadingSystem = leadingSystem && (role === 'system' || role === 'developer');
    if (anthropicRoute && !leadingSystem && !messageParamsPlaced) {
      units.push(...routedParamUnits(body, upstreamModel));
      messageParamsPlaced = true;
    }
    units.push(...chatMessageUnits(record, messageIndex, leadingSystem ? 'system' : 'messages'));
  });
  if (anthropicRoute && !messageParamsPlaced) {
    units.push(...routedParamUnits(body, upstreamModel));
  }
  return {
    format,
    model,
    units,
    automaticBreakpoint: cacheControlTtl(body.cache_control),
    warnings: [],
    ...openAICacheOptions(body),
  };
}

function chatMessageUnits(message: JsonRecord, messageIndex: number, zone: 'system' | 'messages'): WireUnit[] {
  const baseRole = stringField(message, 'role') ?? 'user';
  const callId = stringField(message, 'tool_call_id');
  const name = stringField(message, 'name');
  const role = `${baseRole}${callId ? `:${callId}` : ''}${name ? `:${name}` : ''}`;
  const contentKind = baseRole === 'tool' ? 'tool_result' : 'text';
  const units: WireUnit[] = [];
  const base = `messages[${messageIndex}]`;
  for (const key of ['reasoning_content', 'reasoning'] as const) {
    const reasoning = stringField(message, key);
    if (reasoning)
      units.push(wireUnit(zone, `${base}.${key}`, jsonText(reasoning), role, messageIndex, reasoning, 'prose', 'thinking', null));
  }
  const content = message.content;
  if (typeof content === 'string') {
    units.push(
      wireUnit(
        zone,
        `${base}.content`,
        jsonText({ type: 'text', text: content }),
        role,
        messageIndex,
        content,
        undefined,
        contentKind,
        null,
      ),
    );
  } else if (Array.isArray(content)) {
    content.forEach((part, partIndex) => {
      const record = isRecord(part) ? part : {};
      const path = `${base}.content[${partIndex}]`;
      const text = jsonText(withoutKeys(record, MARKER_KEYS));
      const ttl = markerTtl(record);
      if (record.type === 'text' || record.type === 'input_text') {
        units.push(
          wireUnit(zone, path, text, role, messageIndex, stringField(record, 'text') ?? '', undefined, contentKind, ttl),
        );
      } else if (record.type === 'image_url' || record.type === 'input_image') {
        units.push({
          ...wireUnit(zone, path, text, role, messageIndex, '', 'prose', 'image', ttl),
          fixedTokens: DEFAULT_MEDIA_TOKENS.image,
        });
      } else if (record.type === 'file' || record.type === 'input_file') {
        units.push({
          ...wireUnit(zone, path, text, role, messageIndex, '', 'prose', 'document', ttl),
          fixedTokens: DEFAULT_MEDIA_TOKENS.document,
        });
      } else {
        units.push(wireUnit(zone, path, text, role, messageIndex, text, undefined, 'other', ttl));
      }
    });
  }
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  toolCalls.forEach((call, callIndex) => {
    const text = jsonText(call);
    const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
    const name = stringField(fn, 'name') ?? '';
    const tokenText = `${name}${typeof fn.arguments === 'string' ? fn.arguments : jsonText(fn.arguments)}`;
    units.push({
      ...wireUnit(zone, `${base}.tool_calls[${callIndex}]`, text, role, messageIndex, tokenText, 'json', 'tool_use', null),
      countable: toolUseCountable(name, fn.arguments),
    });
  });
  if (units.length === 0)
    units.push(wireUnit(zone, `${base}.content`, jsonText(content ?? null), role, messageIndex, '', 'prose', contentKind, null));
  return units;
}

/** `cache_control` (OpenRouter → Anthropic) or `prompt_cache_breakpoint` (OpenAI GPT-5.6+). */
export function markerTtl(record: JsonRecord): WireTtl | null {
  const anthropic = cacheControlTtl(record.cache_control);
  if (anthropic) return anthropic;
  return isRecord(record.prompt_cache_breakpoint) ? '30m' : null;
}

/** `prompt_cache_retention` and `prompt_cache_options.mode` of a Chat or Responses body. */
export function openAICacheOptions(body: JsonRecord): Pick<NormalizedWireBody, 'retention' | 'promptCacheMode'> {
  const retention =
    body.prompt_cache_retention === '24h' || body.prompt_cache_retention === 'in_memory' ? body.prompt_cache_retention : null;
  const options = isRecord(body.prompt_cache_options) ? body.prompt_cache_options : {};
  const promptCacheMode = options.mode === 'explicit' || options.mode === 'implicit' ? options.mode : null;
  return { retention, promptCacheMode };
}

/** On an Anthropic route these invalidate only the messages level (effort only where the model's row keeps it in the key). */
function routedParamUnits(body: JsonRecord, anthropicModel: string): WireUnit[] {
  return routedAnthropicKeyParams(body, anthropicModel).map(([path, value]) => wireParamUnit(path, jsonText(value)));
}
