/**
 * The census behind "every current model is priced": every Anthropic, OpenAI, Google and
 * DeepSeek model in the bundled @pydantic/genai-prices data, classified as a chat model released
 * since 2025-06, an older chat model, or not a chat model (embeddings, speech, image and video
 * generation, legacy completions), and whether `cachet simulate --provider P --model <id>`
 * prices it (`findPrice`: Cachet's own row or the genai-prices fallback). genai-prices carries
 * no release dates, so the classification is this table's; an id the table does not classify
 * is reported (`unclassified`), so a package update that adds models is noticed by the test.
 * Claude ids in Google's list (Claude on Vertex) are the Anthropic models, counted once there.
 */
import { createRequire } from 'node:module';
import type { ProviderId } from '../providers/registry.js';
import { genaiPricesAvailable } from './genai-prices-fallback.js';
import { findOwnPrice, findPrice } from './pricing.js';

/** genai-prices provider → the Cachet provider `cachet simulate --provider` runs it on. */
export const CENSUS_PROVIDERS = {
  anthropic: 'anthropic',
  openai: 'openai-chat',
  google: 'gemini',
  deepseek: 'deepseek',
} as const;
type Vendor = keyof typeof CENSUS_PROVIDERS;

/**
 * Chat models released in or after 2025-06 (release month where public: Sonnet 4.5 2025-09,
 * Haiku 4.5 2025-10, Opus 4.5 2025-11, GPT-5 2025-08, GPT-5.1 2025-11, GPT-5.2 2025-12,
 * gpt-oss 2025-08, o3-pro and the deep-research models 2025-06, Gemini 2.5 Flash / Pro GA and
 * 2.5 Flash-Lite 2025-06, Gemma 3n 2025-06, DeepSeek V3.1-Terminus and V3.2-Exp 2025-09,
 * V3.2 2025-12; every model of a later generation than these is later still).
 */
const RECENT_CHAT: Readonly<Record<Vendor, readonly string[]>> = {
  anthropic: [
    'claude-opus-4-1',
    'claude-sonnet-4-5',
    'claude-haiku-4-5',
    'claude-opus-4-5',
    'claude-opus-4-6',
    'claude-sonnet-4-6',
    'claude-opus-4-7',
    'claude-opus-4-8',
    'claude-opus-5',
    'claude-sonnet-5',
    'claude-fable-5',
    'claude-fable-5-1',
    'claude-opus-5-5',
  ],
  openai: [
    'o3-pro',
    'o3-deep-research',
    'o4-mini-deep-research',
    'gpt-oss-120b',
    'gpt-oss-20b',
    'gpt-oss-safeguard-20b',
    'gpt-5',
    'gpt-5-mini',
    'gpt-5-nano',
    'gpt-5-pro',
    'gpt-5.1',
    'gpt-5.1-codex-mini',
    'gpt-5.2',
    'gpt-5.2-pro',
    'gpt-5.3',
    'gpt-5.3-codex',
    'gpt-5.4',
    'gpt-5.4-mini',
    'gpt-5.4-nano',
    'gpt-5.4-pro',
    'gpt-5.5',
    'gpt-5.5-pro',
    'gpt-5.6-luna',
    'gpt-5.6-sol',
    'gpt-5.6-terra',
    'gpt-6-astra',
    'gpt-6-luna',
    'gpt-6-sol',
    'gpt-chat-latest',
  ],
  google: [
    'gemini-2.5-flash',
    'gemini-2.5-pro',
    'gemini-2.5-flash-lite',
    'gemma-3n',
    'gemini-3-pro-preview',
    'gemini-3-flash-preview',
    'gemini-3.1-pro-preview',
    'gemini-3.1-flash-lite',
    'gemini-3.5-flash',
    'gemini-3.5-flash-lite',
    'gemini-3.6-flash',
    'gemini-3.7-flash',
    'gemini-3.8-flash',
    'gemma-4-26b-a4b-it',
    'gemma-4-26b-a4b-it-maas',
    'gemma-4-31b-it',
  ],
  deepseek: [
    'deepseek-chat',
    'deepseek-reasoner',
    'deepseek-v3.1-terminus',
    'deepseek-v3.2-exp',
    'deepseek-v3.2',
    'deepseek-v4-flash',
    'deepseek-v4-pro',
  ],
};

/** Chat models released before 2025-06 (not counted), with their release month. */
const OLDER_CHAT: Readonly<Record<Vendor, Readonly<Record<string, string>>>> = {
  anthropic: {
    'claude-v1': '2023-03',
    'claude-2': '2023-07',
    'claude-3-haiku': '2024-03',
    'claude-3-sonnet': '2024-03',
    'claude-3-opus-latest': '2024-03',
    'claude-3-5-sonnet': '2024-06',
    'claude-3-5-haiku-latest': '2024-10',
    'claude-3-7-sonnet-latest': '2025-02',
    'claude-opus-4-0': '2025-05',
    'claude-sonnet-4-0': '2025-05',
  },
  openai: {
    'gpt-3.5-0301': '2023-03',
    'gpt-3.5-turbo': '2023-03',
    'gpt-3.5-turbo-0613': '2023-06',
    'gpt-3.5-turbo-16k': '2023-06',
    'gpt-3.5-turbo-1106': '2023-11',
    'gpt-4': '2023-03',
    'gpt-4-32k': '2023-03',
    'gpt-4-vision-preview': '2023-11',
    'gpt-4-turbo': '2024-04',
    'gpt-4o': '2024-05',
    'gpt-4o-2024-05-13': '2024-05',
    'gpt-4o-mini': '2024-07',
    'gpt-4o:extended': '2024-07',
    'chatgpt-4o-latest': '2024-08',
    'o1-preview': '2024-09',
    'o1-mini': '2024-09',
    o1: '2024-12',
    'o3-mini': '2025-01',
    'gpt-4.5-preview': '2025-02',
    'o1-pro': '2025-03',
    'computer-use': '2025-03',
    'gpt-4o-search-preview': '2025-03',
    'gpt-4.1': '2025-04',
    'gpt-4.1-mini': '2025-04',
    'gpt-4.1-nano': '2025-04',
    o3: '2025-04',
    'o4-mini': '2025-04',
    'codex-mini': '2025-05',
    'ft:gpt-3.5-turbo-': 'fine-tunes of 2023 models',
    'ft:gpt-4o': 'fine-tunes of a 2024 model',
    'ft:gpt-4o-mini': 'fine-tunes of a 2024 model',
    'gpt-4o-mini-2024-07-18.ft-': 'fine-tunes of a 2024 model',
  },
  google: {
    'gemini-pro': '2023-12',
    'gemini-1.0-pro-vision-001': '2023-12',
    'gemini-1.5-pro': '2024-02',
    'gemini-pro-1.5': '2024-02',
    'gemini-1.5-flash': '2024-05',
    'gemini-flash-1.5': '2024-05',
    'gemini-flash-1.5-8b': '2024-10',
    'gemma-2-27b-it': '2024-06',
    'gemini-2.0-flash': '2025-02',
    'gemini-2.0-flash-lite': '2025-02',
    'gemma-3': '2025-03',
    'gemini-2.5-flash-preview': '2025-04',
  },
  deepseek: {},
};

/** Models in these lists that are not chat models, and what they are. */
const NOT_CHAT: Readonly<Record<Vendor, Readonly<Record<string, string>>>> = {
  anthropic: {},
  openai: {
    ada: 'legacy completion',
    babbage: 'legacy completion',
    curie: 'legacy completion',
    davinci: 'legacy completion',
    'text-davinci-002': 'legacy completion',
    'text-davinci-003': 'legacy completion',
    'gpt-3.5-turbo-instruct': 'legacy completion',
    'text-embedding-3-large': 'embedding',
    'text-embedding-3-small': 'embedding',
    'text-embedding-ada-002': 'embedding',
    moderation: 'moderation',
    'whisper-1': 'transcription',
    'gpt-4o-transcribe': 'transcription',
    'gpt-4o-mini-transcribe': 'transcription',
    'gpt-transcribe': 'transcription',
    'gpt-4o-mini-tts': 'speech',
    'gpt-4o-audio-preview': 'audio',
    'gpt-4o-mini-audio-preview': 'audio',
    'gpt-audio': 'audio',
    'gpt-audio-mini': 'audio',
    'gpt-4o-realtime-preview': 'realtime audio',
    'gpt-4o-mini-realtime-preview': 'realtime audio',
    'gpt-realtime': 'realtime audio',
    'gpt-realtime-2': 'realtime audio',
    'gpt-realtime-mini': 'realtime audio',
    'gpt-image-1': 'image generation',
    'gpt-image-1-mini': 'image generation',
    'gpt-image-1.5': 'image generation',
    'gpt-image-2': 'image generation',
    'gpt-5-image': 'image generation',
    'gpt-5-image-mini': 'image generation',
    'gpt-5.4-image-2': 'image generation',
  },
  google: {
    'gemini-embedding-001': 'embedding',
    'gemini-embedding-2': 'embedding',
    'gemini-2.5-flash-tts': 'speech',
    'gemini-2.5-pro-tts': 'speech',
    'gemini-2.5-flash-lite-preview-tts': 'speech',
    'gemini-live-2.5-flash': 'live audio',
    'gemini-3.1-flash-live-preview': 'live audio',
    'gemini-2.5-flash-image': 'image generation',
    'gemini-3-pro-image-preview': 'image generation',
    'gemini-3.1-flash-image-preview': 'image generation',
    'gemini-3.1-flash-lite-image': 'image generation',
    'gemini-omni-flash-preview': 'video generation',
  },
  deepseek: {},
};

export interface CensusLine {
  vendor: Vendor;
  provider: ProviderId;
  model: string;
  /** `cachet` (own row), `genai-prices` (the fallback), or null (unpriced). */
  pricedBy: 'cachet' | 'genai-prices' | null;
}

export interface ModelCensus {
  /** Recent chat models per vendor, each with who prices it. */
  recent: CensusLine[];
  unpriced: CensusLine[];
  /** Ids in genai-prices' lists this table does not classify (a package update added them). */
  unclassified: string[];
  olderChat: number;
  notChat: number;
}

interface GenaiProviders {
  findProvider(options: { providerId: string }): { models: ReadonlyArray<{ id: string }> } | undefined;
}

/**
 * Count the recent chat models and who prices each; empty when genai-prices is not installed.
 *
 * @example
 * genaiModelCensus().unpriced; // []
 */
export function genaiModelCensus(): ModelCensus {
  const census: ModelCensus = { recent: [], unpriced: [], unclassified: [], olderChat: 0, notChat: 0 };
  if (!genaiPricesAvailable()) return census;
  const genai = createRequire(import.meta.url)('@pydantic/genai-prices') as GenaiProviders;
  for (const vendor of Object.keys(CENSUS_PROVIDERS) as Vendor[]) {
    const provider = CENSUS_PROVIDERS[vendor];
    for (const { id } of genai.findProvider({ providerId: vendor })?.models ?? []) {
      if (vendor === 'google' && id.startsWith('claude-')) continue;
      if (id in OLDER_CHAT[vendor]) census.olderChat += 1;
      else if (id in NOT_CHAT[vendor]) census.notChat += 1;
      else if (!RECENT_CHAT[vendor].includes(id)) census.unclassified.push(`${vendor}/${id}`);
      else {
        const pricedBy = findOwnPrice(provider, id) ? 'cachet' : findPrice(provider, id) ? 'genai-prices' : null;
        const line = { vendor, provider, model: id, pricedBy } as const;
        census.recent.push(line);
        if (pricedBy === null) census.unpriced.push(line);
      }
    }
  }
  return census;
}
