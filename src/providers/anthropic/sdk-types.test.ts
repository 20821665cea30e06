import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, ThinkingBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { convertToAnthropic } from './convert-request.js';
import { anthropicAdapter } from './index.js';
import { imagesAndDocuments, parallelToolLoop, plainChat, sessionStaticPair, thinkingToolLoop } from './test-support/fixtures.js';

/**
 * Compile-time checks, enforced by `tsc --noEmit` (this file is part of the typecheck): the
 * bodies the adapter builds are the SDK's own request type, accepted by `messages.create`.
 * The `@ts-expect-error` lines prove the checks can fail: they break the build if the SDK type
 * stops rejecting those shapes.
 */
type CreateBody = Parameters<Anthropic['messages']['create']>[0];

describe('wire bodies satisfy the SDK request type', () => {
  it('convertToAnthropic returns MessageCreateParamsNonStreaming for every fixture', () => {
    const bodies: MessageCreateParamsNonStreaming[] = [
      plainChat,
      parallelToolLoop,
      thinkingToolLoop,
      imagesAndDocuments,
      sessionStaticPair,
    ].map((fixture) => convertToAnthropic(fixture()).body);
    expectTypeOf(bodies[0]!).toEqualTypeOf<MessageCreateParamsNonStreaming>();
    expectTypeOf(bodies[0]!).toExtend<CreateBody>();
    expectTypeOf(anthropicAdapter.convertRequest(plainChat()).body).toEqualTypeOf<MessageCreateParamsNonStreaming>();
  });

  it('the SDK type rejects shapes Cachet must never send', () => {
    // @ts-expect-error a thinking block without its signature is not a valid request block
    const unsigned: ThinkingBlockParam = { type: 'thinking', thinking: 'x' };
    // @ts-expect-error cache_control is not accepted on thinking blocks
    const marked: ThinkingBlockParam = { type: 'thinking', thinking: 'x', signature: 's', cache_control: { type: 'ephemeral' } };
    // @ts-expect-error the TTL is 5m or 1h
    const ttl: MessageCreateParamsNonStreaming['cache_control'] = { type: 'ephemeral', ttl: '24h' };
    expectTypeOf([unsigned, marked, ttl]).not.toBeNever();
  });

  it('the bodies never hold those shapes at run time either', () => {
    // The runtime half of the checks above, so this file also fails under vitest alone.
    const shapes: Array<{ type?: unknown; signature?: unknown; cache_control?: { ttl?: unknown } }> = [];
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (value !== null && typeof value === 'object') {
        shapes.push(value as (typeof shapes)[number]);
        Object.values(value).forEach(collect);
      }
    };
    for (const fixture of [plainChat, parallelToolLoop, thinkingToolLoop, imagesAndDocuments, sessionStaticPair]) {
      collect(convertToAnthropic(fixture(), { ttl: { global: '1h' } }).body);
    }
    const thinking = shapes.filter((shape) => shape.type === 'thinking');
    expect(thinking.length).toBeGreaterThan(0);
    for (const block of thinking) {
      expect(typeof block.signature).toBe('string');
      expect(block.cache_control).toBeUndefined();
    }
    const ttls = shapes.flatMap((shape) => (shape.cache_control ? [shape.cache_control.ttl ?? '5m'] : []));
    expect(ttls.length).toBeGreaterThan(0);
    expect(new Set(ttls)).toEqual(new Set(['5m', '1h']));
  });
});
