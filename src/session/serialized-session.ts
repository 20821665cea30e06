import { z } from 'zod';
import type { Message, ToolDefinition } from '../model/content.js';
import { ValidationError } from '../model/errors.js';
import { DEFAULT_SIZE_LIMITS, type SizeLimits } from '../model/limits.js';
import type { DeferredTools, GenerationParams, SystemSegment } from '../model/request.js';
import { generationParamsSchema } from '../model/schemas.js';
import { parseWith, validateMessage, validatePairing, validateSystemSegment, validateTools } from '../model/validate.js';
import { validateHistoryOrder } from './history-order.js';

export const SESSION_FORMAT_VERSION = 1;

/** What `Session.toJSON()` returns and `Session.fromJSON()` reads. */
export interface SerializedSession {
  formatVersion: number;
  id: string;
  model: string;
  tools: ToolDefinition[];
  globalToolCount: number;
  system: SystemSegment[];
  sessionMessages: Message[];
  history: Message[];
  params: GenerationParams;
  turn: number;
  /** Deferred tools (absent in format 1 files written before they existed). */
  deferredTools?: DeferredTools;
}

const envelopeSchema = z.object({
  formatVersion: z.number().int(),
  id: z.string().min(1),
  model: z.string().min(1),
  tools: z.array(z.unknown()),
  globalToolCount: z.number().int().nonnegative(),
  system: z.array(z.object({ zone: z.enum(['global', 'session']), label: z.string().min(1), text: z.string().min(1) }).strict()),
  sessionMessages: z.array(z.unknown()),
  history: z.array(z.unknown()),
  params: generationParamsSchema,
  turn: z.number().int().nonnegative(),
  deferredTools: z.object({ tools: z.array(z.unknown()), loaded: z.array(z.string().min(1)) }).optional(),
});

/** Validate a serialised session (format version, every message, pairing). */
export function parseSerializedSession(data: unknown, limitOverrides?: Partial<SizeLimits>): SerializedSession {
  const limits = { ...DEFAULT_SIZE_LIMITS, ...limitOverrides };
  const envelope = parseWith(envelopeSchema, data, 'session');
  if (envelope.formatVersion !== SESSION_FORMAT_VERSION) {
    throw new ValidationError(
      'session.formatVersion',
      `format version ${SESSION_FORMAT_VERSION}`,
      `got ${envelope.formatVersion}; this version of Cachet cannot read it`,
    );
  }
  envelope.system.forEach(({ label, text }, index) => {
    validateSystemSegment({ label, text }, `session.system[${index}]`, limits);
  });
  const tools = validateTools(envelope.tools, 'session.tools', limits);
  if (envelope.globalToolCount > tools.length) {
    throw new ValidationError('session.globalToolCount', `at most ${tools.length}`);
  }
  // Zones in prefix order: every global segment before the first session segment.
  const firstSession = envelope.system.findIndex((segment) => segment.zone === 'session');
  const lateGlobal =
    firstSession === -1 ? -1 : envelope.system.findIndex((segment, index) => index > firstSession && segment.zone === 'global');
  if (lateGlobal !== -1) {
    throw new ValidationError(`session.system[${lateGlobal}].zone`, '"session" (global segments come before session segments)');
  }
  // The same checks a live session applies: the constructor's for the static messages, `append`'s for history.
  const sessionMessages = envelope.sessionMessages.map((message, index) =>
    validateMessage(message, `session.sessionMessages[${index}]`, limits),
  );
  validatePairing(sessionMessages, 'session.sessionMessages', { allowPendingAtEnd: false });
  const history = envelope.history.map((message, index) => validateMessage(message, `session.history[${index}]`, limits));
  validateHistoryOrder(sessionMessages.at(-1), history, (index) => `session.history[${index}]`);
  validatePairing([...sessionMessages, ...history] as Message[], 'session.messages', { allowPendingAtEnd: true });
  const deferredTools = envelope.deferredTools
    ? validateTools(envelope.deferredTools.tools, 'session.deferredTools.tools', limits, new Set(tools.map((tool) => tool.name)))
    : [];
  const unknownLoad = envelope.deferredTools?.loaded.findIndex((name) => !deferredTools.some((tool) => tool.name === name));
  if (unknownLoad !== undefined && unknownLoad !== -1) {
    throw new ValidationError(
      `session.deferredTools.loaded[${unknownLoad}]`,
      'the name of a tool in session.deferredTools.tools',
    );
  }
  return {
    formatVersion: envelope.formatVersion,
    id: envelope.id,
    model: envelope.model,
    tools,
    globalToolCount: envelope.globalToolCount,
    system: envelope.system as SystemSegment[],
    sessionMessages,
    history,
    params: envelope.params as GenerationParams,
    turn: envelope.turn,
    ...(envelope.deferredTools ? { deferredTools: { tools: deferredTools, loaded: envelope.deferredTools.loaded } } : {}),
  };
}
