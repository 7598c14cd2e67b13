// Checks and converts what JavaScript callers pass to the engine, before it reaches wasm:
// matrices become {rows, cols, data: Float32Array}; options are checked for their keys and
// types, and what a caller left out stays undefined, for the core's default. Each problem
// throws an Error that names the argument, what was expected and what was given. Checks
// that need the numbers themselves (shapes that must agree, NaN positions, heads dividing
// dk) and the names of option values are the core's, so that native callers get them too.

// A short description of a value for error messages: 'the string "x"', 'an array of 3', ...
export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of ${value.length}`;
  if (typeof value === 'function') return 'a function';
  return 'an object';
}

export function fail(message) {
  throw new Error(message);
}

export function requireBoolean(name, value) {
  if (typeof value !== 'boolean') fail(`${name} must be true or false, got ${describe(value)}`);
  return value;
}

export function requireFiniteNumber(name, value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    fail(`${name} must be a finite number, got ${describe(value)}`);
  }
  return value;
}

export function requireWholeNumber(name, value, min = 0) {
  if (!Number.isSafeInteger(value) || value < min) {
    fail(`${name} must be a whole number ≥ ${min}, got ${describe(value)}`);
  }
  return value;
}

// The largest size the engine takes: its sizes are 32-bit in wasm.
export const MAX_COUNT = 2 ** 31 - 1;

// A size (rows, heads, tokens, layers...) or an index: a whole number in [min, max].
export function requireCount(name, value, min = 1, max = MAX_COUNT) {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    fail(`${name} must be a whole number from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

// The name of one of an option's values ('softmax', 'rope' …): a string here. Which names
// there are is the core's to say (core/include/attn/names.hpp owns each option's names), and
// an unknown one is the core's error, naming the option and the names it takes.
export function requireName(name, value) {
  if (typeof value !== 'string') fail(`${name} must be a string, got ${describe(value)}`);
  return value;
}

// An option that is an object whose `type` names its kind ({type: 'rope', base: 500}): throws
// unless it is an object with a string type and, when the type is one of keysByType's, only
// that type's keys (an unknown type is left to the core); returns the type.
export function requireTyped(name, value, keysByType, example) {
  if (value === null || typeof value !== 'object') {
    fail(`${name} must be an object such as ${example}, got ${describe(value)}`);
  }
  const type = requireName(`${name}.type`, value.type);
  if (keysByType[type]) requireKnownKeys(name, value, keysByType[type]);
  return type;
}

// A positional option {type, ...} whose keys by type are keysByType → {type, slopes, base,
// pairing}, each undefined unless given.
export function positionalOption(name, positional, keysByType) {
  return {
    type: requireTyped(name, positional, keysByType, "{type: 'rope'}"),
    slopes: optional(positional.slopes, (slopes) => toVector(`${name}.slopes`, slopes)),
    base: optional(positional.base, (base) => requireFiniteNumber(`${name}.base`, base)),
    pairing: optional(positional.pairing, (pairing) => requireName(`${name}.pairing`, pairing)),
  };
}

// `value` checked by `check`, or undefined when the caller left it out: the core's default
// then holds, so that each default is written once, in the core.
export function optional(value, check) {
  return value === undefined ? undefined : check(value);
}

// A result from the core (wasm/bindings.cpp): {ok: true, value} or {ok: false, error}.
export function unwrap(outcome) {
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.value;
}

// Throws on any key of `object` that is not in `known`: a misspelt option is an error,
// not a silent default.
export function requireKnownKeys(name, object, known) {
  if (object === null || typeof object !== 'object' || Array.isArray(object)) {
    fail(`${name} must be an object, got ${describe(object)}`);
  }
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) {
      fail(`unknown option '${key}' in ${name}; known options are ${known.join(', ')}`);
    }
  }
  return object;
}

// number[][] or {rows, cols, data} → {rows, cols, data: Float32Array} (row-major).
export function toMatrix(name, input) {
  if (Array.isArray(input)) return fromRows(name, input);
  if (input !== null && typeof input === 'object' && 'data' in input) return fromFlat(name, input);
  return fail(`${name} must be a number[][] or {rows, cols, data}, got ${describe(input)}`);
}

function fromRows(name, rows) {
  if (rows.length === 0) fail(`${name} has no rows; it needs at least one row and one column`);
  const first = rows[0];
  if (!Array.isArray(first) && !ArrayBuffer.isView(first)) {
    fail(`${name}[0] must be an array of numbers, got ${describe(first)}`);
  }
  const cols = first.length;
  if (cols === 0) fail(`${name}[0] is empty; ${name} needs at least one column`);
  const data = new Float32Array(rows.length * cols);
  rows.forEach((row, i) => {
    if (!Array.isArray(row) && !ArrayBuffer.isView(row)) {
      fail(`${name}[${i}] must be an array of numbers, got ${describe(row)}`);
    }
    if (row.length !== cols) {
      fail(`${name} is ragged: row ${i} has ${row.length} numbers but row 0 has ${cols}`);
    }
    for (let j = 0; j < cols; ++j) {
      if (typeof row[j] !== 'number') fail(`${name}[${i}][${j}] must be a number, got ${describe(row[j])}`);
      data[i * cols + j] = row[j];
    }
  });
  return { rows: rows.length, cols, data };
}

function fromFlat(name, { rows, cols, data }) {
  requireWholeNumber(`${name}.rows`, rows, 1);
  requireWholeNumber(`${name}.cols`, cols, 1);
  if (!Array.isArray(data) && !ArrayBuffer.isView(data)) {
    fail(`${name}.data must be a Float32Array or number[], got ${describe(data)}`);
  }
  if (data.length !== rows * cols) {
    fail(`${name}.data has ${data.length} values but ${name} is ${rows}×${cols} = ${rows * cols}`);
  }
  if (data instanceof Float32Array) return { rows, cols, data };
  const converted = new Float32Array(data.length);
  for (let index = 0; index < data.length; ++index) {
    if (typeof data[index] !== 'number') {
      fail(`${name}.data[${index}] must be a number, got ${describe(data[index])}`);
    }
    converted[index] = data[index];
  }
  return { rows, cols, data: converted };
}

// number[] or Float32Array → Float32Array.
export function toVector(name, input) {
  if (!Array.isArray(input) && !ArrayBuffer.isView(input)) {
    fail(`${name} must be a number[] or Float32Array, got ${describe(input)}`);
  }
  const vector = new Float32Array(input.length);
  for (let index = 0; index < input.length; ++index) {
    if (typeof input[index] !== 'number') {
      fail(`${name}[${index}] must be a number, got ${describe(input[index])}`);
    }
    vector[index] = input[index];
  }
  return vector;
}
