/** One OpenAI model table serves both OpenAI APIs; see `openai-chat/models.ts` for the rows and sources. */
export { OPENAI_MODELS, type OpenAIModelFacts, resolveOpenAIModel } from '../openai-chat/models.js';
