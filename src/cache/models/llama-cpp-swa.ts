/**
 * What llama-server reuses of a slot when the model has sliding-window attention (SWA) layers
 * and `--swa-full` is off (its default). Written from llama.cpp's source, the tree node-llama-cpp
 * 3.22.1 bundles (`llama/gitRelease.bundle`, ggml-org/llama.cpp de3ff81, 2026-09-28):
 *
 * - The SWA layers keep a KV cache of `GGML_PAD(min(n_ctx, n_swa + n_ubatch), 256)` cells
 *   (`src/llama-kv-cache-iswa.cpp` 73–80; `--swa-full` makes it the full context). A cell is
 *   overwritten once its position is `n_swa` or more behind the sequence (`is_masked_swa`,
 *   `src/llama-hparams.h` 472–484), so after `T` tokens the slot holds positions `T − cells`
 *   onwards: `pos_min` (`llama_memory_seq_pos_min` is the SWA cache's, `llama-kv-cache-iswa.cpp` 142–144).
 * - Reuse (`tools/server/server-context.cpp` 3296–3398): with `n_past` the common prefix,
 *   `pos_min_thold = max(0, n_past − n_swa − (n_past < n_prompt ? 0 : 1))`. When the slot's
 *   `pos_min ≥ pos_min_thold` (always when `n_past ≤ n_swa`: `0 ≥ 0`), the tokens before `n_past`
 *   cannot be kept as they are: the server looks, newest first, for a context checkpoint with
 *   `pos_max ≤ n_past` and (`pos_min < pos_min_thold` or `pos_min = 0`); one found restores
 *   `n_past = min(max(pos_min + 1, pos_max), n_past, n_tokens)`; none forces full prompt
 *   re-processing ("forcing full prompt re-processing due to lack of cache data"). Checkpoints
 *   past the new `n_past` are then erased.
 * - Checkpoints (`server-context.cpp` 3460–3635, `create_checkpoint` 2309–2372), taken only for
 *   SWA models without `--swa-full` (and recurrent/hybrid ones): before decoding a batch that
 *   starts a user message (the last one always; others only while no checkpoint is at most
 *   `checkpoint_min_step` behind) or that lies within `n_ubatch` of the prompt's end (the prompt
 *   is cut `4 + n_ubatch` and `4` tokens before its end for that), never on an empty cache. A
 *   checkpoint at `n_tokens = s` saves the SWA state before token `s`: `pos_min` of the cache then,
 *   `pos_max = s − 1`. At most `n_ctx_checkpoints` (32) per slot, the oldest dropped first; when
 *   the list is full, older tasks' checkpoints within `checkpoint_min_step` (8192) of the previous
 *   one are dropped first. User messages are found by the template's user-turn marker
 *   (`common/chat-diff-analyzer.cpp` `detect_user_start_marker`, `common/chat.cpp` 1341–1349).
 * - Defaults (`common/common.h`): `n_batch` 2048, `n_ubatch` 512, `n_ctx_checkpoints` 32,
 *   `checkpoint_min_step` 8192, `swa_full` false.
 *
 * So with SWA a request reuses its whole common prefix only when the prefix ends within
 * `cells − n_swa` tokens of what the slot holds; otherwise it falls back to the newest checkpoint
 * before the divergence (typically the previous prompt's last user message, or `4 + n_ubatch`
 * / `4` tokens before its end), or to nothing.
 */

/** llama-server settings the SWA reuse rule depends on (its defaults when omitted). */
export interface LlamaServerSwaSettings {
  /** `--ubatch-size` (default 512). */
  ubatch: number;
  /** `--batch-size` (default 2048). */
  batch: number;
  /** `--ctx-checkpoints` (default 32; 0 disables checkpoints). */
  contextCheckpoints: number;
  /** `--checkpoint-min-step` (default 8192). */
  checkpointMinStep: number;
  /** The slot's context size (`--ctx-size` ÷ slots; default: large enough never to cap the SWA cache). */
  contextSize: number;
}

export const LLAMA_SERVER_SWA_DEFAULTS: LlamaServerSwaSettings = {
  ubatch: 512,
  batch: 2048,
  contextCheckpoints: 32,
  checkpointMinStep: 8192,
  contextSize: Number.MAX_SAFE_INTEGER,
};

/** One context checkpoint: the SWA state before token `tokens`. */
export interface SwaCheckpoint {
  tokens: number;
  posMin: number;
  posMax: number;
  /** The request that created it (checkpoints of the current request are never thinned). */
  request: number;
}

/** What the SWA layers of one slot hold between requests. */
export interface SwaSlotState {
  /** Oldest position still in the SWA cache; −1 when it is empty. */
  posMin: number;
  checkpoints: SwaCheckpoint[];
}

export function emptySwaSlot(): SwaSlotState {
  return { posMin: -1, checkpoints: [] };
}

/** Cells of the SWA cache (`llama-kv-cache-iswa.cpp` 73: padded to 256). */
export function swaCacheCells(window: number, settings: LlamaServerSwaSettings): number {
  return Math.ceil(Math.min(settings.contextSize, window + settings.ubatch) / 256) * 256;
}

export interface SwaReuse {
  /** Tokens kept before the `[TAG_PROMPT_LOGITS]` rule (at least one prompt token is evaluated). */
  kept: number;
  /** How: the cache as it is, a restored checkpoint, or a full re-processing. */
  via: 'cache' | 'checkpoint' | 'reset';
  checkpoint: SwaCheckpoint | null;
}

/**
 * The slot's reuse for a prompt of `promptLength` tokens sharing `common` tokens with it
 * (`server-context.cpp` 3292–3398). Mutates `state`: the restored or cleared cache, and the
 * checkpoints the server erases.
 */
export function swaReuse(state: SwaSlotState, common: number, promptLength: number, window: number): SwaReuse {
  let kept = common;
  let via: SwaReuse['via'] = 'cache';
  let restored: SwaCheckpoint | null = null;
  const threshold = Math.max(0, common - window - (common < promptLength ? 0 : 1));
  if (common > 0 && state.posMin >= threshold) {
    restored =
      [...state.checkpoints]
        .reverse()
        .find((checkpoint) => checkpoint.posMax <= common && (checkpoint.posMin < threshold || checkpoint.posMin === 0)) ?? null;
    if (restored) {
      const next = Math.min(common, Math.max(restored.posMin + 1, restored.posMax));
      kept = Math.min(next, restored.tokens);
      state.posMin = restored.posMin;
      via = 'checkpoint';
    } else {
      kept = 0;
      via = 'reset';
    }
  }
  state.checkpoints = state.checkpoints.filter((checkpoint) => checkpoint.posMax <= kept);
  return { kept, via, checkpoint: restored };
}

/**
 * Process the prompt from `from` (the kept tokens, after the one-token rule) to `promptLength`
 * as the server batches it, taking checkpoints where it takes them (`server-context.cpp`
 * 3520–3635). `userStarts`: token indexes where a user message starts. Mutates `state`.
 */
export function swaProcessPrompt(
  state: SwaSlotState,
  prompt: { from: number; length: number; userStarts: readonly number[]; request: number },
  window: number,
  settings: LlamaServerSwaSettings,
): void {
  const cells = swaCacheCells(window, settings);
  const { length, userStarts, request } = prompt;
  const lastUser = userStarts.length > 0 ? userStarts[userStarts.length - 1]! : -1;
  if (state.posMin >= prompt.from) state.posMin = -1; // `seq_rm(p0, -1)` emptied the SWA cache
  let start = prompt.from;
  while (start < length) {
    const end = batchEnd(state, start, length, userStarts, lastUser, settings);
    const completes = end === length;
    const nearEnd = length < end + settings.ubatch;
    const userStart = userStarts.includes(start);
    const last = state.checkpoints[state.checkpoints.length - 1];
    const wanted =
      settings.contextCheckpoints > 0 &&
      (completes || userStart || nearEnd) &&
      state.posMin >= 0 &&
      (!last || start === lastUser || nearEnd || start > last.tokens + settings.checkpointMinStep);
    if (wanted) createCheckpoint(state, { tokens: start, posMin: state.posMin, posMax: start - 1, request }, settings);
    if (state.posMin < 0) state.posMin = start;
    state.posMin = Math.max(state.posMin, end - cells);
    start = end;
  }
}

/** Where the server ends the batch that starts at `start` (`server-context.cpp` 3524–3580). */
function batchEnd(
  state: SwaSlotState,
  start: number,
  length: number,
  userStarts: readonly number[],
  lastUser: number,
  settings: LlamaServerSwaSettings,
): number {
  const last = state.checkpoints[state.checkpoints.length - 1];
  const breaks = [
    start + settings.batch,
    length,
    length - Math.min(settings.batch, 4 + settings.ubatch),
    length - Math.min(settings.batch, 4),
    ...(settings.contextCheckpoints > 0
      ? userStarts.filter((at) => at === lastUser || !last || at > last.tokens + settings.checkpointMinStep)
      : []),
  ];
  return Math.min(...breaks.filter((at) => at > start));
}

/** `create_checkpoint` (`server-context.cpp` 2309–2372). */
function createCheckpoint(state: SwaSlotState, checkpoint: SwaCheckpoint, settings: LlamaServerSwaSettings): void {
  let list = state.checkpoints;
  if (list.length + 1 >= settings.contextCheckpoints) {
    let previous = -1;
    list = list.filter((item) => {
      if (item.request !== checkpoint.request && previous >= 0 && item.tokens <= previous + settings.checkpointMinStep) {
        return false;
      }
      previous = item.tokens;
      return true;
    });
  }
  while (list.length >= settings.contextCheckpoints) list = list.slice(1);
  state.checkpoints = [...list.filter((item) => item.tokens !== checkpoint.tokens), checkpoint];
}

/** The reply's tokens decoded one by one after the prompt (`length` tokens in the slot after it). */
export function swaAfterGeneration(
  state: SwaSlotState,
  slotLength: number,
  window: number,
  settings: LlamaServerSwaSettings,
): void {
  if (state.posMin < 0) return;
  state.posMin = Math.max(state.posMin, slotLength - swaCacheCells(window, settings));
}

/** Token indexes where `marker` (the user-turn opener, tokenized) starts in `tokens` (`common_chat_msg_delimiters::split`). */
export function markerStarts(tokens: readonly number[], marker: readonly number[]): number[] {
  if (marker.length === 0) return [];
  const starts: number[] = [];
  for (let index = 0; index + marker.length <= tokens.length; index++) {
    let matches = true;
    for (let offset = 0; offset < marker.length && matches; offset++) matches = tokens[index + offset] === marker[offset];
    if (matches) starts.push(index);
  }
  return starts;
}

/** One request on an SWA slot: what it reuses, then the slot after its prompt and reply. */
export function judgeSwaRequest(
  state: SwaSlotState,
  request: { common: number; promptLength: number; generated: number; userStarts: readonly number[]; index: number },
  window: number,
  settings: LlamaServerSwaSettings,
): SwaReuse & { reused: number } {
  const reuse = swaReuse(state, request.common, request.promptLength, window);
  // [TAG_PROMPT_LOGITS]: at least the last prompt token is evaluated.
  const reused = Math.min(reuse.kept, Math.max(0, request.promptLength - 1));
  swaProcessPrompt(
    state,
    { from: reused, length: request.promptLength, userStarts: request.userStarts, request: request.index },
    window,
    settings,
  );
  swaAfterGeneration(state, request.promptLength + request.generated, window, settings);
  return { ...reuse, reused };
}

/** Why a sliding-window slot reused less than the common prefix, and what `--swa-full` would give. */
export function swaExplanation(reuse: SwaReuse & { reused: number }, withSwaFull: number, window: number): string {
  const how =
    reuse.via === 'checkpoint' && reuse.checkpoint
      ? `back to its context checkpoint at token ${reuse.checkpoint.tokens}`
      : 'to nothing (no context checkpoint before the divergence: full re-processing)';
  return (
    `Sliding-window attention (${window}-token window) without --swa-full: the slot no longer holds the window before token ${withSwaFull}, ` +
    `so llama-server falls ${how} and reuses ${reuse.reused} tokens; with --swa-full (swaFull: true) it would reuse ${withSwaFull}.`
  );
}
