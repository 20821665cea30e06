import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ValidationError } from '../../model/errors.js';
import { parseWith } from '../../model/validate.js';

/** One scripted reply: text, tool calls, or both (text first). */
export interface ScriptedReply {
  text?: string;
  toolCalls?: Array<{ name: string; input: Record<string, unknown> }>;
}

const replySchema = z
  .object({
    text: z.string().optional(),
    toolCalls: z.array(z.object({ name: z.string().min(1), input: z.record(z.string(), z.unknown()) }).strict()).optional(),
  })
  .strict()
  .refine((reply) => reply.text !== undefined || (reply.toolCalls?.length ?? 0) > 0, 'a reply needs text or toolCalls');

/** A script file: `{ "replies": [...] }`, one reply per request in arrival order, then the echo. */
export const replyScriptSchema = z.object({ replies: z.array(replySchema) }).strict();

/**
 * Replies in request order; once they run out (or with no script) every reply is a
 * deterministic echo of the last user text, so the same requests always get the same replies.
 */
export interface ReplySource {
  next(lastUserText: string): ScriptedReply;
}

export function replySource(replies: readonly ScriptedReply[] = []): ReplySource {
  let index = 0;
  return {
    next(lastUserText) {
      const scripted = replies[index++];
      return scripted ?? { text: `Echo: ${lastUserText.slice(0, 200)}` };
    },
  };
}

/** Read and check a script file, naming the file and field on bad input. */
export async function loadReplyScript(path: string): Promise<ScriptedReply[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ValidationError(path, 'a readable reply script file', String((error as Error).message));
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(path, 'JSON', (error as Error).message);
  }
  return parseWith(replyScriptSchema, json, path).replies as ScriptedReply[];
}
