import type { GenerateContentParameters } from '@google/genai';
import type { CanonicalRequest } from '../../model/request.js';
import type { ProviderAdapter } from '../adapter.js';
import { geminiCapabilities } from './capabilities.js';
import { convertToGemini, type GeminiConversionResult, type GeminiOptions } from './convert-request.js';
import { parseGeminiUsage } from './parse-usage.js';

/** A `ProviderAdapter` whose conversions carry the Gemini metadata (`staticHash`, `explicitCache`). */
export interface GeminiAdapter extends ProviderAdapter<GenerateContentParameters, GeminiOptions> {
  convertRequest(request: CanonicalRequest, options?: GeminiOptions): GeminiConversionResult;
}

/**
 * The Google Gemini adapter: canonical request to `GenerateContentParameters`, usage from
 * `usageMetadata`, and the capabilities record. Never touches the network; the explicit cache
 * lifecycle (which does) lives in `createGeminiCacheSession`.
 *
 * @example
 * const { body } = geminiAdapter.convertRequest(assemble(session));
 * const response = await new GoogleGenAI({ apiKey }).models.generateContent(body);
 * geminiAdapter.parseUsage(response).cacheReadTokens;
 */
export const geminiAdapter: GeminiAdapter = {
  id: 'gemini',
  capabilities: (model) => geminiCapabilities(model),
  convertRequest: convertToGemini,
  parseUsage: parseGeminiUsage,
};

export { geminiCapabilities } from './capabilities.js';
export {
  convertToGemini,
  type GeminiConversionMetadata,
  type GeminiConversionResult,
  type GeminiExplicitCacheRef,
  type GeminiOptions,
  type GeminiStaticPrefix,
  geminiStaticPrefix,
} from './convert-request.js';
export {
  chooseGeminiCaching,
  DEFAULT_IMPLICIT_HIT_RATE,
  type GeminiCachingChoice,
  type GeminiCachingInput,
  type GeminiSessionForecast,
} from './explicit-cache-policy.js';
export {
  createGeminiCacheSession,
  type GeminiCacheSession,
  type GeminiCacheSessionOptions,
  type GeminiCachesApi,
  type GeminiPrepared,
} from './explicit-cache-session.js';
export { GEMINI_MODELS, type GeminiModelRow, resolveGeminiModel, UNKNOWN_GEMINI_MODEL } from './models.js';
export { GEMINI_USAGE_FIELDS, geminiUsageSchema, parseGeminiUsage } from './parse-usage.js';
