import { describe, expect, it } from 'vitest';
import type { Message } from '../model/content.js';
import { anthropicEstimator } from '../tokens/anthropic-estimator.js';
import { applyMediaWindow } from './media-window.js';
import type { RewriteContext } from './observation-masking.js';

const image = (tag: string) => ({
  type: 'image' as const,
  source: { kind: 'base64' as const, mediaType: 'image/png', data: `iVBORw0KGgo${tag}` },
});

describe('media window', () => {
  it('keeps images only in the last two messages carrying media and offloads the older ones', () => {
    const history: Message[] = [];
    for (let step = 0; step < 4; step++) {
      history.push({ role: 'user', content: [{ type: 'text', text: `step ${step}` }, image(`user${step}`)] });
      history.push({ role: 'assistant', content: [{ type: 'tool_use', id: `s${step}`, name: 'screenshot', input: {} }] });
      history.push({ role: 'user', content: [{ type: 'tool_result', toolUseId: `s${step}`, content: [image(`shot${step}`)] }] });
      history.push({ role: 'assistant', content: [{ type: 'text', text: `saw ${step}` }] });
    }
    const context: RewriteContext = { sessionId: 's', counter: anthropicEstimator(), offloads: [] };
    const saved = applyMediaWindow(history, 2, context);
    expect(saved).toBeGreaterThan(0);
    const withImages = history.flatMap((message, index) => (JSON.stringify(message).includes('"type":"image"') ? [index] : []));
    expect(withImages).toEqual([12, 14]);
    expect(context.offloads.map((offload) => offload.record.content[0])).toEqual([
      image('user0'),
      image('shot0'),
      image('user1'),
      image('shot1'),
      image('user2'),
      image('shot2'),
    ]);
    expect(JSON.stringify(history[0])).toContain(context.offloads[0]?.record.id);
    expect(applyMediaWindow(history, 2, { ...context, offloads: [] })).toBe(0);
  });
});
