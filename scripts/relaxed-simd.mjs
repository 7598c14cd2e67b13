// Gives the relaxed-SIMD build of the engine the standard opcode of f32x4.relaxed_madd.
//
// Debian's Emscripten 3.1.6 (LLVM 14) compiles __builtin_wasm_fma_f32x4 under -mrelaxed-simd
// to the proposal's first opcode, 0xfd 0xaf 0x01 ("f32x4.relaxed_fma", which then read
// fma(a, b, c) as a + b·c), which engines reject. The standard's f32x4.relaxed_madd,
// 0xfd 0x85 0x02, reads the same three operands as a·b + c: the meaning the engine's
// simd::multiply_add(a, b, acc) gives the builtin. Both opcodes are three bytes, so each is
// rewritten in place. (Binaryen 108, which Emscripten runs on the module, would fold an fma
// of three constants by the old meaning; the engine has none, and tests/js/simd-builds.test.mjs
// holds the two builds within 1e-6 of each other.)
//
// The rewrite decodes every instruction of every function body (an opcode's bytes may also
// appear inside another's immediates, a constant or an offset), and throws on any opcode it
// does not know, so that a newer compiler's output is never patched blind.
const SECTION_CODE = 10;
const PREFIX_NUMERIC = 0xfc;
const PREFIX_SIMD = 0xfd;
const FMA_PROPOSAL = 0xaf;        // LLVM 14's f32x4.relaxed_fma
const RELAXED_MADD = 0x105;       // the standard's f32x4.relaxed_madd
const LAST_STANDARD_RELAXED = 0x113;  // relaxed SIMD's opcodes are 0x100 to 0x113, none with immediates
// LLVM 14's other relaxed-SIMD opcodes (its builtins compiled and read with llvm-objdump-14):
// the engine uses none of them, and none is rewritten, so one found is an error.
const OTHER_PROPOSAL_OPCODES = new Set([0xa2, 0xa5, 0xa6, 0xb0, 0xb2, 0xb3, 0xb4, 0xc5, 0xc6,
  0xcf, 0xd0, 0xd2, 0xd3, 0xd4, 0xe2, 0xee]);

class Reader {
  constructor(bytes, at, end) { Object.assign(this, { bytes, at, end }); }

  byte() {
    if (this.at >= this.end) throw new Error(`relaxed-simd: unexpected end of bytes at ${this.at}`);
    return this.bytes[this.at++];
  }

  // An unsigned or signed LEB128 number; only its length matters for skipping, its value
  // for sizes, counts and opcodes (all below 2^32).
  leb() {
    let value = 0, shift = 0, byte;
    do {
      byte = this.byte();
      if (shift < 32) value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  }

  skip(count) {
    if (this.at + count > this.end) throw new Error(`relaxed-simd: unexpected end of bytes at ${this.at}`);
    this.at += count;
  }
}

// Immediates of the one-byte opcodes, by opcode (those absent have none or are unknown).
function skipPlainImmediates(reader, opcode) {
  if (opcode >= 0x02 && opcode <= 0x04) reader.leb();                  // block, loop, if: block type
  else if (opcode === 0x0c || opcode === 0x0d) reader.leb();           // br, br_if
  else if (opcode === 0x0e) {                                           // br_table
    const targets = reader.leb();
    for (let i = 0; i <= targets; ++i) reader.leb();
  } else if (opcode === 0x10) reader.leb();                             // call
  else if (opcode === 0x11) { reader.leb(); reader.leb(); }             // call_indirect
  else if (opcode === 0x1c) {                                           // select with types
    const types = reader.leb();
    for (let i = 0; i < types; ++i) reader.byte();
  } else if (opcode >= 0x20 && opcode <= 0x26) reader.leb();           // locals, globals, tables
  else if (opcode >= 0x28 && opcode <= 0x3e) { reader.leb(); reader.leb(); }  // memarg
  else if (opcode === 0x3f || opcode === 0x40) reader.byte();          // memory.size, grow
  else if (opcode === 0x41 || opcode === 0x42) reader.leb();           // i32.const, i64.const
  else if (opcode === 0x43) reader.skip(4);                             // f32.const
  else if (opcode === 0x44) reader.skip(8);                             // f64.const
  else if (opcode === 0xd0) reader.byte();                              // ref.null
  else if (opcode === 0xd2) reader.leb();                               // ref.func
  else if (!(opcode <= 0x01 || opcode === 0x05 || opcode === 0x0b || opcode === 0x0f
    || opcode === 0x1a || opcode === 0x1b || (opcode >= 0x45 && opcode <= 0xc4) || opcode === 0xd1)) {
    throw new Error(`relaxed-simd: unknown opcode 0x${opcode.toString(16)} at ${reader.at - 1}`);
  }
}

function skipNumericImmediates(reader, opcode) {
  if (opcode <= 7) return;                                              // saturating truncations
  if (opcode === 8) { reader.leb(); reader.byte(); }                    // memory.init
  else if (opcode === 9 || opcode === 13 || (opcode >= 15 && opcode <= 17)) reader.leb();
  else if (opcode === 10) { reader.byte(); reader.byte(); }             // memory.copy
  else if (opcode === 11) reader.byte();                                // memory.fill
  else if (opcode === 12 || opcode === 14) { reader.leb(); reader.leb(); }  // table.init, copy
  else throw new Error(`relaxed-simd: unknown opcode 0xfc ${opcode} at ${reader.at}`);
}

function skipSimdImmediates(reader, opcode) {
  if (opcode <= 11 || opcode === 92 || opcode === 93) { reader.leb(); reader.leb(); }  // memarg
  else if (opcode === 12 || opcode === 13) reader.skip(16);            // v128.const, shuffle
  else if (opcode >= 21 && opcode <= 34) reader.byte();                 // lane index
  else if (opcode >= 84 && opcode <= 91) { reader.leb(); reader.leb(); reader.byte(); }
  else if (opcode > LAST_STANDARD_RELAXED || OTHER_PROPOSAL_OPCODES.has(opcode)) {
    throw new Error(`relaxed-simd: unknown opcode 0xfd ${opcode} at ${reader.at}`);
  }
}

// Rewrites the instructions of one function body, bytes[at, end); returns how many. The body
// must end with the `end` that closes it, at its last byte.
function rewriteBody(bytes, at, end) {
  const reader = new Reader(bytes, at, end);
  const groups = reader.leb();
  for (let i = 0; i < groups; ++i) { reader.leb(); reader.byte(); }   // locals: count, type
  let rewritten = 0, depth = 0;
  while (reader.at < end) {
    const opcode = reader.byte();
    if (opcode === PREFIX_NUMERIC) skipNumericImmediates(reader, reader.leb());
    else if (opcode === PREFIX_SIMD) {
      const start = reader.at;
      const simdOpcode = reader.leb();
      if (simdOpcode === FMA_PROPOSAL) {
        if (reader.at - start !== 2) throw new Error(`relaxed-simd: a padded opcode at ${start}`);
        bytes[start] = 0x80 | (RELAXED_MADD & 0x7f);
        bytes[start + 1] = RELAXED_MADD >> 7;
        ++rewritten;
      } else {
        skipSimdImmediates(reader, simdOpcode);
      }
    } else {
      skipPlainImmediates(reader, opcode);
      if (opcode >= 0x02 && opcode <= 0x04) ++depth;
      else if (opcode === 0x0b && depth-- === 0) {
        if (reader.at !== end) throw new Error(`relaxed-simd: a function body ends before its last byte, at ${reader.at}`);
        return rewritten;
      }
    }
  }
  throw new Error(`relaxed-simd: a function body does not end with 'end', at ${end}`);
}

/**
 * Returns a copy of the wasm module `bytes` (Uint8Array) with every f32x4.relaxed_fma of
 * LLVM 14 given the standard opcode of f32x4.relaxed_madd, and how many were rewritten.
 */
export function standardizeRelaxedSimd(module) {
  const bytes = Uint8Array.from(module);
  const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (bytes.length < 8 || header.some((byte, i) => bytes[i] !== byte)) {
    throw new Error('relaxed-simd: not a version-1 wasm module');
  }
  const reader = new Reader(bytes, 8, bytes.length);
  let rewritten = 0, bodies = 0;
  while (reader.at < bytes.length) {
    const id = reader.byte();
    const size = reader.leb();
    const end = reader.at + size;
    if (end > bytes.length) throw new Error(`relaxed-simd: section ${id} runs past the end of the module`);
    if (id === SECTION_CODE) {
      const code = new Reader(bytes, reader.at, end);
      const count = code.leb();
      for (let i = 0; i < count; ++i) {
        const bodySize = code.leb();
        if (code.at + bodySize > end) throw new Error(`relaxed-simd: function body ${i} runs past the end of its section`);
        rewritten += rewriteBody(bytes, code.at, code.at + bodySize);
        code.skip(bodySize);
      }
      bodies += count;
    }
    reader.skip(size);
  }
  if (bodies === 0) throw new Error('relaxed-simd: the module has no code section');
  return { bytes, rewritten };
}
