import { ChatAnthropic } from '@langchain/anthropic';
import { anthropicReply } from '../../test-support/anthropic-replies.js';
import { type RecordingFetch, recordingFetch } from '../../test-support/recording-fetch.js';

type Answer = Parameters<typeof recordingFetch>[0];

/**
 * The real `ChatAnthropic` (claude-sonnet-4-5, no retries, no key) whose Messages API is a recording fetch:
 * every body it sends is kept in `recorder.bodies`, and each call is answered by `answer` (default: a plain "ok").
 */
export function recordedChatAnthropic(answer: Answer = () => anthropicReply({ text: 'ok' }, false)): {
  recorder: RecordingFetch;
  model: ChatAnthropic;
} {
  const recorder = recordingFetch(answer);
  const model = new ChatAnthropic({
    model: 'claude-sonnet-4-5',
    apiKey: 'no-key-needed',
    maxRetries: 0,
    clientOptions: { fetch: recorder.fetch },
  });
  return { recorder, model };
}
