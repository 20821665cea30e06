import { ValidationError } from '../../model/errors.js';
import { importOptional } from '../../model/optional-dependency.js';

/** What a GGUF model file says about how its prompts are rendered and cached. */
export interface GgufTemplateFacts {
  /** The file's `general.architecture` (`qwen3`, `llama`, `gemma3`, ...). */
  architecture: string;
  /** `tokenizer.chat_template`: the Jinja template llama.cpp renders requests with. */
  chatTemplate: string;
  /** `<architecture>.attention.sliding_window`, when the model uses sliding-window attention on some layers. */
  slidingWindow: number | null;
}

/**
 * Reads the chat template (and the facts beside it) from a GGUF model file, the source of truth
 * llama.cpp itself renders with — no engine needed, only the file's metadata is read. Uses the
 * optional package `@huggingface/gguf`.
 *
 * @example
 * const { chatTemplate } = await readGgufTemplate('Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf');
 * const model = createLocalEngineCacheModel({ chatTemplate });
 */
export async function readGgufTemplate(path: string): Promise<GgufTemplateFacts> {
  const { gguf } = await importOptional<typeof import('@huggingface/gguf')>(
    '@huggingface/gguf',
    '@huggingface/gguf',
    'reading a chat template from a GGUF file',
  );
  let metadata: Record<string, unknown>;
  try {
    metadata = (await gguf(path, { allowLocalFile: true })).metadata as Record<string, unknown>;
  } catch (error) {
    throw new ValidationError(path, 'a readable GGUF model file', error instanceof Error ? error.message : String(error));
  }
  const architecture = metadata['general.architecture'];
  const chatTemplate = metadata['tokenizer.chat_template'];
  if (typeof chatTemplate !== 'string' || chatTemplate.length === 0) {
    throw new ValidationError(path, 'a GGUF file with tokenizer.chat_template', 'the file carries no chat template');
  }
  const window = typeof architecture === 'string' ? metadata[`${architecture}.attention.sliding_window`] : undefined;
  return {
    architecture: typeof architecture === 'string' ? architecture : 'unknown',
    chatTemplate,
    slidingWindow: typeof window === 'number' && window > 0 ? window : null,
  };
}
