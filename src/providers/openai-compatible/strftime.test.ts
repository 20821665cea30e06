import { describe, expect, it } from 'vitest';
import { renderChatTemplate } from './chat-template.js';
import { strftime } from './strftime.js';

describe('strftime', () => {
  it('formats the fields chat templates use, in UTC', () => {
    const at = Date.UTC(2026, 10, 5, 7, 3, 9);
    expect(strftime('%d %b %Y', at)).toBe('05 Nov 2026');
    expect(strftime('%B %d, %y %H:%M:%S %%', at)).toBe('November 05, 26 07:03:09 %');
    expect(strftime('%Q stays', at)).toBe('%Q stays');
  });

  it('lets a render choose the clock a template sees through strftime_now', () => {
    const template = "Today Date: {{ strftime_now('%d %b %Y') }}";
    const at = Date.UTC(2024, 6, 26);
    const rendered = renderChatTemplate({ messages: [] }, template, {
      variables: { strftime_now: (format: string) => strftime(format, at) },
    });
    expect(rendered).toBe('Today Date: 26 Jul 2024');
    // Without one, the machine's clock (what an engine does).
    expect(renderChatTemplate({ messages: [] }, template)).toBe(`Today Date: ${strftime('%d %b %Y', Date.now())}`);
  });
});
