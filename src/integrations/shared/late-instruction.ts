/**
 * Providers whose API takes a system (or developer) message after tool results, so a drop-in can
 * send a request tail there in the instructions' role. Others — Anthropic (no system role among
 * messages) and servers behind an OpenAI-compatible API (llama.cpp, vLLM, OpenRouter routes),
 * whose chat templates may refuse a system message past the first (Qwen3's raises) — get a user
 * message instead. Keyed by the drop-in's provider family (the AI SDK's `providerOf`, pi's
 * `model.provider`), so every drop-in decides it the same way.
 */
const LATE_INSTRUCTION_PROVIDERS: ReadonlySet<string> = new Set(['openai']);

/** Whether a request tail after tool results may go out as a system (or developer) message. */
export function acceptsLateInstruction(provider: string): boolean {
  return LATE_INSTRUCTION_PROVIDERS.has(provider);
}
