import { bedrockBaseModelId } from '../../providers/bedrock/models.js';
import { isRecord, type JsonRecord } from './json-helpers.js';

/**
 * A Bedrock Converse body rewritten as the Anthropic Messages body it stands for, so Anthropic's
 * cache rules (and the break detector) judge it: Converse keeps the same prefix order (tools →
 * system → messages) and the same checkpoint semantics, with `{ cachePoint }` as a block of its
 * own after the block it closes where the Messages API puts `cache_control` on that block.
 * The model id loses its region and vendor prefix (`us.anthropic.claude-…` → `claude-…`).
 * Blobs (`Uint8Array`) become base64, as the SDK sends them.
 *
 * @example
 * normalizeWireBody(converseAsMessages(converseBody), 'anthropic');
 */
export function converseAsMessages(body: JsonRecord): JsonRecord {
  const modelId = typeof body.modelId === 'string' ? body.modelId : '';
  const toolConfig = isRecord(body.toolConfig) ? body.toolConfig : {};
  const tools = withMarkers(Array.isArray(toolConfig.tools) ? toolConfig.tools : [], convertTool);
  const system = withMarkers(Array.isArray(body.system) ? body.system : [], (block) =>
    typeof block.text === 'string' ? { type: 'text', text: block.text } : { type: 'other', value: block },
  );
  const messages = (Array.isArray(body.messages) ? body.messages : []).map((message) => {
    const record = isRecord(message) ? message : {};
    return { role: record.role, content: withMarkers(Array.isArray(record.content) ? record.content : [], convertBlock) };
  });
  const result: JsonRecord = { model: bedrockBaseModelId(modelId) };
  if (tools.length > 0) result.tools = tools;
  if (system.length > 0) result.system = system;
  const choice = isRecord(toolConfig.toolChoice) ? toolConfig.toolChoice : null;
  if (choice) result.tool_choice = convertToolChoice(choice);
  const additional = isRecord(body.additionalModelRequestFields) ? body.additionalModelRequestFields : {};
  if (additional.thinking !== undefined) result.thinking = additional.thinking;
  result.messages = messages;
  return result;
}

/** Blocks in order, each `cachePoint` folded into the block before it as `cache_control`. */
function withMarkers(list: unknown[], convert: (block: JsonRecord) => JsonRecord): JsonRecord[] {
  const out: JsonRecord[] = [];
  for (const item of list) {
    const block = isRecord(item) ? item : {};
    if (isRecord(block.cachePoint)) {
      const marker = block.cachePoint.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
      const previous = out.at(-1);
      // A checkpoint with nothing before it closes no prefix: Bedrock rejects it, and it caches nothing here.
      if (previous) previous.cache_control = marker;
      continue;
    }
    out.push(convert(block));
  }
  return out;
}

function convertTool(tool: JsonRecord): JsonRecord {
  const spec = isRecord(tool.toolSpec) ? tool.toolSpec : {};
  const schema = isRecord(spec.inputSchema) ? spec.inputSchema.json : undefined;
  return { name: spec.name, ...(spec.description !== undefined ? { description: spec.description } : {}), input_schema: schema };
}

function convertToolChoice(choice: JsonRecord): JsonRecord {
  if (isRecord(choice.tool)) return { type: 'tool', name: choice.tool.name };
  if (choice.any !== undefined) return { type: 'any' };
  return { type: 'auto' };
}

function base64(value: unknown): unknown {
  return value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value;
}

function convertBlock(block: JsonRecord): JsonRecord {
  if (typeof block.text === 'string') return { type: 'text', text: block.text };
  if (isRecord(block.image)) return { type: 'image', source: mediaSource(block.image, `image/${String(block.image.format)}`) };
  if (isRecord(block.document)) {
    const document = block.document;
    const source = isRecord(document.source) ? document.source : {};
    if (typeof source.text === 'string')
      return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: source.text } };
    return { type: 'document', source: mediaSource(document, 'application/pdf') };
  }
  if (isRecord(block.toolUse))
    return { type: 'tool_use', id: block.toolUse.toolUseId, name: block.toolUse.name, input: block.toolUse.input };
  if (isRecord(block.toolResult)) {
    const result = block.toolResult;
    const content = (Array.isArray(result.content) ? result.content : []).map((inner) =>
      isRecord(inner) ? convertBlock(inner) : { type: 'other' },
    );
    return {
      type: 'tool_result',
      tool_use_id: result.toolUseId,
      content,
      ...(result.status === 'error' ? { is_error: true } : {}),
    };
  }
  if (isRecord(block.reasoningContent)) {
    const reasoning = block.reasoningContent;
    if (isRecord(reasoning.reasoningText)) {
      return { type: 'thinking', thinking: reasoning.reasoningText.text, signature: reasoning.reasoningText.signature };
    }
    return { type: 'redacted_thinking', data: base64(reasoning.redactedContent) };
  }
  return { type: 'other', value: block };
}

function mediaSource(media: JsonRecord, mediaType: string): JsonRecord {
  const source = isRecord(media.source) ? media.source : {};
  if (isRecord(source.s3Location)) return { type: 'url', url: source.s3Location.uri };
  return { type: 'base64', media_type: mediaType, data: base64(source.bytes) };
}
