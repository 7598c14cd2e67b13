// PyTorch's CPU generator (core/include/attn/torch_generator.hpp): torch.rand and
// torch.nn.Linear's initialisation after torch.manual_seed, number for number.
import {
  requireBoolean, requireCount, requireWholeNumber, unwrap,
} from './arguments.mjs';

export function generatorCalls(core) {
  function torchGenerator(seed) {
    requireWholeNumber('seed', seed, 0);
    let draws = 0;  // numbers consumed so far: the core replays the stream from the seed
    return {
      seed,
      get draws() { return draws; },
      rand(rows, cols) {
        const out = unwrap(core.torchRand(seed, draws, requireCount('rows', rows, 0),
          requireCount('cols', cols, 0)));
        draws = out.draws;
        return out.matrix;
      },
      linear(inFeatures, outFeatures, bias = true) {
        const out = unwrap(core.torchLinear(seed, draws, requireCount('inFeatures', inFeatures, 1),
          requireCount('outFeatures', outFeatures, 0), requireBoolean('bias', bias)));
        draws = out.draws;
        return { weight: out.weight, bias: out.bias };
      },
    };
  }

  return { torchGenerator };
}
