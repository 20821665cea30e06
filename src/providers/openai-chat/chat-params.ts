import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionNamedToolChoice,
} from 'openai/resources/chat/completions';
import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import { canonicalize } from '../../model/canonical-json.js';
import type { ToolDefinition } from '../../model/content.js';
import type { GenerationParams, ToolChoice } from '../../model/request.js';
import { assertNever } from '../../model/validate.js';

/**
 * Tool definitions in the request's order (global tools, then discovered tools in discovery
 * order) with schemas in canonical key order, so the tools prefix never changes by accident.
 */
export function toChatTools(tools: readonly ToolDefinition[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: canonicalize(tool.inputSchema) },
  }));
}

export function toChatToolChoice(choice: ToolChoice): 'auto' | 'required' | 'none' | ChatCompletionNamedToolChoice {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
    default:
      return assertNever(choice);
  }
}

type SamplingFields = Pick<
  ChatCompletionCreateParamsNonStreaming,
  'temperature' | 'top_p' | 'stop' | 'tool_choice' | 'parallel_tool_calls' | 'reasoning_effort'
>;

/**
 * Generation parameters shared by every Chat-Completions-shaped body. Reasoning models reject
 * sampling parameters, so they are dropped there with a warning; `parallel_tool_calls` is part
 * of OpenAI's cached prefix, so it is only sent when tools are.
 */
export function chatSamplingFields(
  params: GenerationParams,
  hasTools: boolean,
  reasoningModel: boolean,
  warnings: AdapterWarning[],
): SamplingFields {
  const fields: SamplingFields = {};
  if (reasoningModel) {
    if (params.temperature !== undefined || params.topP !== undefined) {
      warnings.push(
        adapterWarning('sampling-dropped', 'params: temperature/topP dropped (reasoning models reject sampling parameters)'),
      );
    }
    if (params.effort) fields.reasoning_effort = params.effort;
  } else {
    if (params.temperature !== undefined) fields.temperature = params.temperature;
    if (params.topP !== undefined) fields.top_p = params.topP;
  }
  if (params.stopSequences && params.stopSequences.length > 0) fields.stop = params.stopSequences;
  if (hasTools && params.toolChoice) fields.tool_choice = toChatToolChoice(params.toolChoice);
  if (hasTools && params.parallelToolCalls !== undefined) fields.parallel_tool_calls = params.parallelToolCalls;
  return fields;
}
