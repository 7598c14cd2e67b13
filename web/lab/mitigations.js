// What each mitigation does, in the literature and in the lab's model, for the learner.
export const MITIGATIONS = {
  'query-aware': {
    name: 'Query-aware contextualisation',
    what: 'Liu et al. put the question before the documents as well as after them. A decoder reads left to right, so '
      + 'without this the documents are encoded without knowing what will be asked.',
    model: 'In the model, a copy of the query takes position 0, and every later token then scores the keys by content '
      + 'too, not only the final one. The needle is picked up by the tokens after it, and reaches the final token '
      + 'along many paths instead of one.',
    expect: 'Expect a higher, flatter curve. Liu et al. found it nearly solved their key-value retrieval task but changed '
      + 'multi-document QA little.',
  },
  calibration: {
    name: 'Calibration (Found in the Middle)',
    what: 'Hsieh et al. (2024) measure the attention a content-free dummy document gets at each position: that is the '
      + 'positional bias. Subtracting it leaves attention that follows relevance.',
    model: 'In the model, the final query\'s scores have the dummy\'s scores at the same position subtracted — its '
      + 'distance bias is removed, so it attends by content alone. The layers below are left as they are.',
    expect: 'Expect recency to vanish: the end no longer wins. Primacy from depth stays, because it is not in the '
      + 'query\'s scores but in how the layers below mix the tokens.',
  },
  'ms-poe': {
    name: 'Ms-PoE: multi-scale positions',
    what: 'Zhang et al. (2024) divide each head\'s position indices by a ratio between 1.2 and 1.8, a different one per '
      + 'head, so that distances look shorter and each head decays at its own pace.',
    model: 'In the model, 8 heads measure distances divided by 1.2, 1.29, …, 1.8 and their attention is averaged: the '
      + 'decay of ALiBi or RoPE is stretched out.',
    expect: 'Expect the end to lose part of its advantage and the middle to gain. With no distance decay (or when '
      + 'primacy dominates) there is little for it to fix.',
  },
  reorder: {
    name: 'Reordering',
    what: 'If you cannot change the model, change the input: rank the documents by a relevance estimate (a retriever) '
      + 'and put the best ones where the model looks — the edges.',
    model: 'In the model, each document\'s estimate is its true score plus noise (σ = 1). The k-th best goes to the '
      + 'position with the k-th highest value of the position curve above.',
    expect: 'Expect a flat curve near the top: wherever the needle started, it is moved to a good spot, as long as the '
      + 'estimate ranks it first.',
  },
};
