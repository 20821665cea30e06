import type {
  CachedContent,
  CreateCachedContentParameters,
  DeleteCachedContentParameters,
  UpdateCachedContentParameters,
} from '@google/genai';
import type { EventBus } from '../../events/event-bus.js';
import type { CanonicalRequest } from '../../model/request.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { charsPerTokenCounter } from '../shared/chars-token-counter.js';
import type { GeminiExplicitCacheRef, GeminiOptions } from './convert-request.js';
import { convertToGemini, geminiStaticPrefix } from './convert-request.js';
import { chooseGeminiCaching, type GeminiCachingChoice, type GeminiSessionForecast } from './explicit-cache-policy.js';
import { type GeminiModelRow, resolveGeminiModel } from './models.js';

/** The part of `GoogleGenAI#caches` the session uses (pass `ai.caches`). */
export interface GeminiCachesApi {
  create(params: CreateCachedContentParameters): Promise<CachedContent>;
  update(params: UpdateCachedContentParameters): Promise<CachedContent>;
  delete(params: DeleteCachedContentParameters): Promise<unknown>;
}

export interface GeminiCacheSessionOptions {
  caches: GeminiCachesApi;
  sessionId: string;
  /** Input price of the model, USD per million tokens (from the price table). */
  inputPerMTok: number;
  bus?: EventBus;
  /** The session's clock [Date.now]. */
  clock?: () => number;
  /** Counts the static prefix before a cache exists [chars/4]. */
  tokenCounter?: TokenCounter;
  /** See `chooseGeminiCaching` [0.5]. */
  implicitHitRate?: number;
  models?: readonly GeminiModelRow[];
}

export interface GeminiPrepared {
  /** Pass to `convertToGemini` (or use `body`). */
  options: GeminiOptions;
  body: ReturnType<typeof convertToGemini>['body'];
  choice: GeminiCachingChoice;
}

interface Held extends GeminiExplicitCacheRef {
  tokens: number;
  createdAt: number;
  expiresAt: number;
}

/**
 * One session's explicit Gemini cache: decides per request whether an explicit cache beats
 * implicit caching (`chooseGeminiCaching`), creates it, extends its TTL as the session goes on,
 * replaces it when the tools or system instruction change, and deletes it when implicit caching
 * becomes cheaper or the session ends. Every step is an event (`explicit_cache.created`,
 * `.extended`, `.deleted`). A failing cache call never fails the request: it raises
 * `warning.raised` and the request goes out with implicit caching.
 *
 * @example
 * const cache = createGeminiCacheSession({ caches: ai.caches, sessionId: session.id, inputPerMTok: 0.3, bus });
 * const { body } = await cache.prepare(assemble(session), { expectedRemainingRequests: 20, expectedGapMs: 30_000 });
 * const response = await ai.models.generateContent(body);
 * await cache.close(); // at session end
 */
export function createGeminiCacheSession(options: GeminiCacheSessionOptions) {
  const clock = options.clock ?? Date.now;
  const counter = options.tokenCounter ?? charsPerTokenCounter();
  let held: Held | null = null;

  const warn = (message: string) =>
    options.bus?.emit('warning.raised', options.sessionId, clock(), { source: 'gemini.explicit-cache', message });

  async function drop(reason: 'session-ended' | 'stale' | 'policy' | 'expired'): Promise<void> {
    if (!held) return;
    const cache = held;
    held = null;
    const now = clock();
    const tokenHours = (cache.tokens * (Math.min(now, cache.expiresAt) - cache.createdAt)) / 3_600_000;
    // An expired cache is already gone on Google's side; deleting it would be a 404.
    if (reason !== 'expired') {
      try {
        await options.caches.delete({ name: cache.name });
      } catch (error) {
        warn(`deleting ${cache.name} failed (${(error as Error).message}); it expires on its own at its TTL`);
      }
    }
    options.bus?.emit('explicit_cache.deleted', options.sessionId, now, {
      provider: 'gemini',
      name: cache.name,
      reason,
      tokenHours,
    });
  }

  return {
    /** The explicit cache the session holds now, if any. */
    get current(): GeminiExplicitCacheRef | null {
      return held ? { name: held.name, staticHash: held.staticHash, messageCount: held.messageCount } : null;
    },

    /** Decide, create / extend / delete as needed, and convert the request. */
    async prepare(request: CanonicalRequest, forecast: GeminiSessionForecast): Promise<GeminiPrepared> {
      const row = resolveGeminiModel(request.model, options.models);
      const prefix = geminiStaticPrefix(request);
      const staticHash = convertToGemini(request).metadata.staticHash;
      const staticTokens = counter.countText(JSON.stringify(prefix), 'json');
      const choice = chooseGeminiCaching({
        ...forecast,
        staticTokens,
        row,
        inputPerMTok: options.inputPerMTok,
        ...(options.implicitHitRate !== undefined ? { implicitHitRate: options.implicitHitRate } : {}),
      });
      const now = clock();
      if (held && now >= held.expiresAt) await drop('expired');
      if (held && held.staticHash !== staticHash) await drop('stale');
      if (choice.mode === 'implicit') {
        await drop('policy');
      } else if (held) {
        try {
          await options.caches.update({ name: held.name, config: { ttl: `${choice.ttlSeconds}s` } });
          held.expiresAt = now + choice.ttlSeconds * 1000;
          options.bus?.emit('explicit_cache.extended', options.sessionId, now, {
            provider: 'gemini',
            name: held.name,
            ttlSeconds: choice.ttlSeconds,
            expiresAt: held.expiresAt,
          });
        } catch (error) {
          warn(`extending ${held.name} failed (${(error as Error).message}); sending without it`);
          held = null;
        }
      } else {
        try {
          const created = await options.caches.create({
            model: request.model,
            config: {
              ttl: `${choice.ttlSeconds}s`,
              displayName: `cachet ${options.sessionId}`.slice(0, 128),
              ...(prefix.systemInstruction ? { systemInstruction: prefix.systemInstruction } : {}),
              ...(prefix.tools ? { tools: prefix.tools } : {}),
              ...(prefix.toolConfig ? { toolConfig: prefix.toolConfig } : {}),
              ...(prefix.contents.length > 0 ? { contents: prefix.contents } : {}),
            },
          });
          if (!created.name) throw new Error('the response carries no cache name');
          const tokens = created.usageMetadata?.totalTokenCount ?? staticTokens;
          held = {
            name: created.name,
            staticHash,
            messageCount: prefix.contents.length,
            tokens,
            createdAt: now,
            expiresAt: now + choice.ttlSeconds * 1000,
          };
          options.bus?.emit('explicit_cache.created', options.sessionId, now, {
            provider: 'gemini',
            name: created.name,
            model: request.model,
            tokens,
            ttlSeconds: choice.ttlSeconds,
            expiresAt: held.expiresAt,
            reason: choice.reason,
          });
        } catch (error) {
          warn(`creating an explicit cache failed (${(error as Error).message}); sending with implicit caching`);
          held = null;
        }
      }
      const conversionOptions: GeminiOptions = { explicitCache: this.current };
      return { options: conversionOptions, body: convertToGemini(request, conversionOptions).body, choice };
    },

    /** Delete the cache at session end (storage is billed until it is gone). */
    async close(): Promise<void> {
      if (held && clock() >= held.expiresAt) await drop('expired');
      else await drop('session-ended');
    },
  };
}

export type GeminiCacheSession = ReturnType<typeof createGeminiCacheSession>;
