// What each mitigation does, in the literature and in the lab's model, and when it helps, for
// the learner. The page's own numbers say whether it helped with the settings on display
// (views/mitigation.js): nothing here promises a curve.
import { RETRIEVER_NOISE } from './state.js';

export const MITIGATIONS = {
  'query-aware': {
    name: 'Query-aware contextualisation',
    what: 'Liu et al. put the question before the documents as well as after them. A decoder reads left to right, so '
      + 'without this the documents are encoded without knowing what will be asked.',
    model: 'In the model, a copy of the query takes position 0, and every later token then scores the keys by content '
      + 'too, not only the final one. The needle is picked up by the tokens after it, and reaches the final token '
      + 'along many paths instead of one.',
    helps: 'It helps when what is lost is the needle\'s attention: its mass can rise at every depth. Whether it then '
      + 'beats every distractor is another question — set “Retrieval measured as”, above chart 3, to the top-1 rate '
      + '(with the defaults the top-1 rate rises at the first document and falls at the last ones). Liu et al. found it nearly solved their '
      + 'key-value retrieval task but changed multi-document QA little.',
  },
  calibration: {
    name: 'Calibration (Found in the Middle)',
    what: 'Hsieh et al. (2024) measure the attention a content-free dummy document gets at each position: that is the '
      + 'positional bias. Subtracting it leaves attention that follows relevance.',
    model: 'In the model, the final query\'s scores have the dummy\'s scores at the same position subtracted — its '
      + 'distance bias is removed, so it attends by content alone. The layers below are left as they are.',
    helps: 'It helps against recency: the end no longer wins (with the Recency preset the curve becomes nearly flat; with '
      + 'the defaults the late depths lose and the early ones gain). It does nothing against primacy from depth, which '
      + 'is not in the final query\'s scores but in how the layers below mix the tokens: with the Primacy preset the '
      + 'curve does not change.',
  },
  'ms-poe': {
    name: 'Ms-PoE: multi-scale positions',
    what: 'Zhang et al. (2024) divide each head\'s position indices by a ratio between 1.2 and 1.8, a different one per '
      + 'head, so that distances look shorter and each head decays at its own pace.',
    model: 'In the model, 8 heads measure distances divided by 1.2, 1.29, …, 1.8 and their attention is averaged: the '
      + 'decay of ALiBi or RoPE is stretched out.',
    helps: 'It helps where distance decay hides the middle: the end loses part of its advantage and the middle and '
      + 'start gain. With no distance decay (the Primacy preset) it changes nothing.',
  },
  reorder: {
    name: 'Reordering',
    what: 'If you cannot change the model, change the input: rank the documents by a relevance estimate (a retriever) '
      + 'and put the best ones where the model looks best.',
    model: `In the model, each document's estimate is its true score plus noise (σ = ${RETRIEVER_NOISE}). The k-th best goes to the `
      + 'position with the k-th highest value of the position curve (chart 1), which is measured without content.',
    helps: 'It helps only when the needle is found best where the position curve is high. When they disagree, it '
      + 'moves the needle away from its best place: with the defaults the position curve is highest at the start '
      + 'while the needle is found best at the end (chart 3), and the mean falls. A noisy estimate also misplaces '
      + 'the needle at times. With the Recency preset the two agree: reordering lifts the mean and the worst depths, '
      + 'while the last depths, already the best, lose some.',
  },
};

/** What to compare before and after any mitigation. */
export const COMPARE = 'Compare the mean (how much is retrieved on average over the depths) and the worst depth '
  + '(the depth where the least is retrieved) before and after: a mitigation can raise one and lower the other, and '
  + 'a flatter curve is no better when it is flat lower down.';
