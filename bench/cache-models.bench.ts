/**
 * Cache models and the break detector over growing sessions of 200 requests (one more
 * exchange each request): milliseconds per judged request for Anthropic (estimated counts)
 * and OpenAI (exact o200k counts), and per observed request for the break detector. No target
 * is set by an issue; the figures show the models are cheap next to a provider round trip.
 */
import { createAnthropicCacheModel, createBreakDetector, createOpenAICacheModel } from '../src/cache/index.js';

const REQUESTS = 200;
const filler = (index: number) => `message ${index}: ${'the quick brown fox jumps over the lazy dog '.repeat(20)}`;

function anthropicBody(exchanges: number): Record<string, unknown> {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'You are a coding agent. '.repeat(400), cache_control: { type: 'ephemeral' } }],
    messages: Array.from({ length: exchanges }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: [
        { type: 'text', text: filler(index), ...(index === exchanges - 1 ? { cache_control: { type: 'ephemeral' } } : {}) },
      ],
    })),
  };
}

function chatBody(exchanges: number): Record<string, unknown> {
  return {
    model: 'gpt-4.1',
    messages: [
      { role: 'system', content: 'You are a coding agent. '.repeat(400) },
      ...Array.from({ length: exchanges }, (_, index) => ({
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: filler(index),
      })),
    ],
  };
}

function time(label: string, run: (index: number) => void): void {
  const started = performance.now();
  for (let index = 0; index < REQUESTS; index++) run(index);
  const total = performance.now() - started;
  console.log(`${label.padEnd(28)} ${total.toFixed(0).padStart(6)} ms total, ${(total / REQUESTS).toFixed(2)} ms per request`);
}

const anthropicBodies = Array.from({ length: REQUESTS }, (_, index) => anthropicBody(2 * index + 1));
const chatBodies = Array.from({ length: REQUESTS }, (_, index) => chatBody(2 * index + 1));
const anthropic = createAnthropicCacheModel();
const openai = createOpenAICacheModel();
const detector = createBreakDetector();
time('anthropic model', (index) => anthropic.judge(anthropicBodies[index], { at: index * 30_000 }));
time('openai model (o200k)', (index) => openai.judge(chatBodies[index], { at: index * 30_000 }));
time('break detector (anthropic)', (index) => detector.observe(anthropicBodies[index], { at: index * 30_000 }));
