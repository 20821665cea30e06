/** One OpenAI model table serves both OpenAI APIs; see `openai-chat/models.ts` for the rows and sources. */
export { OPENAI_MODELS, resolveOpenAIModel, type OpenAIModelFacts } from '../openai-chat/models.js';
