import { chainHash, EMPTY_PREFIX_HASH, hashOf } from '../model/hash.js';
import type { BlockRecord, CanonicalRequest, TailItem } from '../model/request.js';
import { lazyRequest } from '../model/request-view.js';
import { validatePairing } from '../model/validate.js';
import type { Session } from './session.js';
import type { TailContext } from './tail-provider.js';

export interface AssembleOptions {
  /** The request's time; defaults to the session's clock. Only tail providers read it. */
  now?: number;
  /** Extra tail items for this request only (per-turn matched skills, overlays...). */
  tail?: TailItem[];
  /**
   * The request's tail, already rendered and scoped (`resolveTurnTail`): tail providers are not
   * evaluated again and `tail` is ignored. Without it every item is sent for this request only.
   */
  resolvedTail?: TailItem[];
}

/**
 * Lay out the session's four zones as a provider-neutral request. Pure with respect to the
 * session: it reads state and memoised hashes, evaluates tail providers, and changes nothing.
 * Tail content is kept apart from `messages` and marked, so adapters can place it where no
 * provider or chat template sees a fresh user turn.
 */
export function assemble(session: Session, options: AssembleOptions = {}): CanonicalRequest {
  const history = session.history;
  const sessionMessages = session.sessionMessages;
  const lastMessage = history.at(-1);
  if (lastMessage?.role === 'assistant' && lastMessage.content.some((block) => block.type === 'tool_use')) {
    validatePairing([lastMessage], 'messages', {
      allowPendingAtEnd: false,
      offset: sessionMessages.length + history.length - 1,
    });
  }
  const inToolLoop =
    lastMessage?.role === 'user' &&
    lastMessage.content.length > 0 &&
    lastMessage.content.every((block) => block.type === 'tool_result');

  const tailItems = options.resolvedTail
    ? options.resolvedTail.filter((item) => item.text.length > 0)
    : renderTail(session, { now: options.now, tail: options.tail });

  // The persisted records and messages are shared append-only arrays: the request keeps a
  // snapshot (array, length) of each and copies them only if someone reads `blocks` or
  // `messages`, so a request costs work for its tail, not for the whole history.
  const persisted = session.blockIndex.persistedBlocks(session);
  const persistedBlockCount = persisted.length;
  const tailBlocks: BlockRecord[] = [];
  let prefix = persisted.at(-1)?.prefixHash ?? EMPTY_PREFIX_HASH;
  tailItems.forEach((item, index) => {
    const hash = hashOf(item as unknown as { zone: string; text: string });
    prefix = chainHash(prefix, hash);
    tailBlocks.push({ zone: 'tail', path: `tail[${index}]`, hash, prefixHash: prefix });
  });
  const messages = session.messageLog.snapshot(sessionMessages, history);

  const deferredTools = session.deferredTools;
  return lazyRequest(
    {
      sessionId: session.id,
      model: session.model,
      tools: session.tools.slice(),
      system: session.system.slice(),
      tail: { items: tailItems, inToolLoop },
      params: { ...session.params },
      layout: {
        globalToolCount: session.globalTools,
        discoveredToolCount: session.tools.length - session.globalTools,
        sessionMessageCount: sessionMessages.length,
        historyMessageCount: history.length,
      },
    },
    {
      messageSource: messages.source,
      messageCount: messages.length,
      blockSource: persisted,
      persistedBlockCount,
      tailBlocks,
    },
    deferredTools ? { tools: deferredTools.tools.slice(), loaded: deferredTools.loaded.slice() } : undefined,
  );
}

/**
 * Evaluate the session's tail providers for a request at `now` and add `tail`, in that order;
 * empty texts are dropped. Items keep their declared scope (absent = `auto`).
 */
export function renderTail(session: Session, options: { now?: number; tail?: readonly TailItem[] } = {}): TailItem[] {
  const context: TailContext = {
    sessionId: session.id,
    now: options.now ?? session.clock(),
    turn: session.turn,
    latestUserText: latestUserText(session),
    inToolLoop: inToolLoop(session),
  };
  const items: TailItem[] = [];
  for (const provider of session.tailProviders) {
    const text = provider.render(context);
    if (typeof text === 'string' && text.length > 0) {
      items.push({
        kind: provider.kind,
        text,
        position: provider.position ?? 'end',
        ...(provider.scope ? { scope: provider.scope } : {}),
      });
    }
  }
  for (const item of options.tail ?? []) {
    if (item.text.length > 0) items.push(item);
  }
  return items;
}

function inToolLoop(session: Session): boolean {
  const lastMessage = session.history.at(-1);
  return (
    lastMessage?.role === 'user' &&
    lastMessage.content.length > 0 &&
    lastMessage.content.every((block) => block.type === 'tool_result')
  );
}

function latestUserText(session: Session): string {
  const history = session.history;
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index];
    if (message?.role !== 'user') continue;
    const texts = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
    if (texts.length > 0) return texts.join('\n');
  }
  return '';
}
