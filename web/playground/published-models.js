// Published decoder configurations whose key/value cache the cost panel prices (the page
// states the same numbers and their sources under the table): layers, key/value heads and
// head width as their papers and model cards give them, the context length they were trained
// for, and Mistral's sliding window.
export const PUBLISHED_MODELS = [
  // Radford et al. 2019 (GPT-2's smallest, 117M): 12 layers, d_model 768 in 12 heads.
  { name: 'GPT-2 small', layers: 12, heads: 12, kvHeads: 12, headWidth: 64, window: 0, context: 1024 },
  // Touvron et al. 2023, arXiv:2307.09288: 7B keeps multi-head attention (GQA only at 34B and 70B).
  { name: 'Llama 2 7B', layers: 32, heads: 32, kvHeads: 32, headWidth: 128, window: 0, context: 4096 },
  // Meta's Llama 3 model card (2024): grouped-query attention with 8 key/value heads.
  { name: 'Llama 3 8B', layers: 32, heads: 32, kvHeads: 8, headWidth: 128, window: 0, context: 8192 },
  // Jiang et al. 2023, arXiv:2310.06825, Table 1: n_kv_heads 8, window_size 4096, context_len 8192.
  { name: 'Mistral 7B', layers: 32, heads: 32, kvHeads: 8, headWidth: 128, window: 4096, context: 8192 },
];

/** The context lengths the table prices: 4K, 32K and 128K tokens. */
export const KV_CACHE_TOKENS = [4, 32, 128].map((k) => k * 1024);

/** Bytes per element of the cache: fp16. */
export const KV_CACHE_BYTES_PER_ELEMENT = 2;
