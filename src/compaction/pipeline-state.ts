import { z } from 'zod';
import { parseWith } from '../model/validate.js';
import type { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { SessionNotes } from './session-notes.js';
import { type StructuredSummary, structuredSummarySchema } from './structured-summary.js';

/** The pipeline's per-session state; archived in every checkpoint. */
export interface PipelineSessionState {
  lastRequestAt: number | null;
  lastModel: string | null;
  requestIndex: number;
  lastAppliedRequest: number | null;
  /** History length when the last request was planned: later messages have never been sent. */
  sentHistoryLength: number;
  summary: StructuredSummary | null;
  carried: { userInstructions: string[]; activeErrors: Array<{ toolName: string; text: string }> };
  notes: string[];
  checkpoints: string[];
}

const count = z.number().int().nonnegative();
const pipelineSessionStateSchema = z
  .object({
    lastRequestAt: z.number().finite().nullable(),
    lastModel: z.string().nullable(),
    requestIndex: count,
    lastAppliedRequest: count.nullable(),
    sentHistoryLength: count,
    summary: structuredSummarySchema.nullable(),
    carried: z.object({
      userInstructions: z.array(z.string()),
      activeErrors: z.array(z.object({ toolName: z.string(), text: z.string() })),
    }),
    notes: z.array(z.string()),
    checkpoints: z.array(z.string()),
  })
  .strict();

/**
 * A pipeline state read back from a checkpoint, checked field by field: a checkpoint file
 * edited or written by another version must fail here with a ValidationError naming the field
 * (`checkpoint ckpt_….pipelineState.carried.userInstructions`), not later as a TypeError out of
 * the tool loop.
 */
export function parsePipelineState(value: unknown, checkpointId: string): PipelineSessionState {
  return parseWith(pipelineSessionStateSchema, value, `checkpoint ${checkpointId}.pipelineState`) as PipelineSessionState;
}

export function emptyPipelineState(): PipelineSessionState {
  return {
    lastRequestAt: null,
    lastModel: null,
    requestIndex: 0,
    lastAppliedRequest: null,
    sentHistoryLength: 0,
    summary: null,
    carried: { userInstructions: [], activeErrors: [] },
    notes: [],
    checkpoints: [],
  };
}

interface SessionEntry {
  state: PipelineSessionState;
  notes: SessionNotes | null;
  counter: { model: string; counter: TokenCounter } | null;
}

/**
 * Everything a pipeline remembers about its sessions, keyed by the session object (a WeakMap):
 * a finished session's state is garbage-collected with it, however many sessions a process runs,
 * and two sessions that happen to share an id never share state or notes.
 */
export class PipelineStates {
  private readonly entries = new WeakMap<Session, SessionEntry>();
  /** Live entries, for the bounded-state test seam; a WeakMap cannot be counted. */
  private readonly registry = new FinalizationRegistry<undefined>(() => {
    this.live -= 1;
  });
  private live = 0;

  constructor(private readonly newCounter: (session: Session) => TokenCounter) {}

  state(session: Session): PipelineSessionState {
    return this.entry(session).state;
  }

  notes(session: Session): SessionNotes {
    const entry = this.entry(session);
    entry.notes ??= new SessionNotes(entry.state.notes);
    return entry.notes;
  }

  /** One counter per session and model (a model switch loads the new model's counter). */
  counter(session: Session): TokenCounter {
    const entry = this.entry(session);
    if (entry.counter?.model !== session.model) entry.counter = { model: session.model, counter: this.newCounter(session) };
    return entry.counter.counter;
  }

  /** Take over a state archived in a checkpoint for the session rebuilt from it. */
  adopt(session: Session, state: PipelineSessionState): void {
    const known = this.entries.get(session);
    if (known) {
      known.state = state;
      known.notes = null;
      known.counter = null;
      return;
    }
    this.track(session, { state, notes: null, counter: null });
  }

  /** @internal Sessions whose state has not been garbage-collected yet (a test seam). */
  get liveSessions(): number {
    return this.live;
  }

  private entry(session: Session): SessionEntry {
    return this.entries.get(session) ?? this.track(session, { state: emptyPipelineState(), notes: null, counter: null });
  }

  private track(session: Session, entry: SessionEntry): SessionEntry {
    this.entries.set(session, entry);
    this.live += 1;
    this.registry.register(session, undefined);
    return entry;
  }
}
