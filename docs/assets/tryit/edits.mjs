// @ts-check
// Pure helpers of the editable "Try it" (no CodeMirror here, no network, small enough for the
// widget to import on every page):
//
// - a reader's edits of a recipe, kept per recipe in localStorage: saveEdits / loadEdits /
//   clearEdits;
// - a share link: the edited files compressed (CompressionStream, deflate-raw) and written in
//   base64url into the URL fragment, "#tryit=<recipe>.<data>", so nothing is sent to a server:
//   encodeShare / shareRecipe / decodeShare;
// - an edited run compared with the tested one (transcript.txt): compareTranscripts and
//   differenceMessage ("differs from the tested run at step 3").
//
// Files are [{ name, text, editable }] as the editor takes them; only the editable files' texts
// are stored or shared, and only those are ever replaced by stored or shared texts.

/**
 * @typedef {{ name: string, text: string, editable?: boolean }} EditorFile
 * @typedef {Record<string, string>} Texts {name: text} of edited files
 * @typedef {{ index: number, step: number, expected: string | null, actual: string | null }} Difference
 */

const KEY_PREFIX = "tryit:edits:";
const SHARE_PREFIX = "#tryit=";
const FORMAT = 1;
const MAX_SHARED_BYTES = 1 << 20; // a shared payload never inflates beyond 1 MiB
const RECIPE = /^[a-z0-9][a-z0-9_-]*$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** @param {unknown} recipe @returns {asserts recipe is string} */
function checkRecipe(recipe) {
  if (typeof recipe !== "string" || !RECIPE.test(recipe)) {
    throw new TypeError(`recipe must be a recipe name (letters, digits, "-"), got ${JSON.stringify(recipe)}`);
  }
}

/** @param {unknown} files @param {string} what @returns {asserts files is EditorFile[]} */
function checkFiles(files, what) {
  if (!Array.isArray(files)) throw new TypeError(`${what} must be an array of {name, text, editable}`);
  files.forEach((file, i) => {
    if (!file || typeof file.name !== "string" || typeof file.text !== "string") {
      throw new TypeError(`${what}[${i}] must be {name: string, text: string, editable}`);
    }
  });
}

// A short fingerprint of the original files (FNV-1a, 32 bits): stored and shared edits say
// which version of the recipe they were made on, so a newer build can tell it changed since.
/** @param {EditorFile[]} originals */
export function fingerprint(originals) {
  checkFiles(originals, "originals");
  let hash = 0x811c9dc5;
  for (const file of originals) {
    for (const char of `${file.name}\u0000${file.text}\u0000`) {
      hash ^= /** @type {number} */ (char.codePointAt(0));
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
  }
  return hash.toString(16).padStart(8, "0");
}

// {name: text} of the editable files whose text differs from the original.
/** @param {EditorFile[]} originals @param {EditorFile[]} files */
export function editedTexts(originals, files) {
  checkFiles(originals, "originals");
  checkFiles(files, "files");
  /** @type {Texts} */
  const edited = {};
  for (const original of originals) {
    const file = files.find((f) => f.name === original.name);
    if (original.editable && file && file.text !== original.text) edited[original.name] = file.text;
  }
  return edited;
}

// The originals with the editable ones' texts replaced by `texts` ({name: text}); names of
// read-only or unknown files are ignored.
/** @param {EditorFile[]} originals @param {Texts} texts */
export function applyTexts(originals, texts) {
  checkFiles(originals, "originals");
  return originals.map((file) => {
    const text = file.editable && Object.hasOwn(texts, file.name) ? texts[file.name] : file.text;
    return { ...file, text: typeof text === "string" ? text : file.text };
  });
}

function defaultStorage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage disabled (e.g. a privacy setting): nothing is kept
  }
}

// Keep the reader's edits of `recipe` (or forget them when nothing differs any more).
// Returns "saved", "cleared", or null when storage is unavailable or full.
/** @param {string} recipe @param {EditorFile[]} originals @param {EditorFile[]} files */
export function saveEdits(recipe, originals, files, storage = defaultStorage()) {
  checkRecipe(recipe);
  const texts = editedTexts(originals, files);
  if (!storage) return null;
  try {
    if (Object.keys(texts).length === 0) {
      storage.removeItem(KEY_PREFIX + recipe);
      return "cleared";
    }
    const record = { v: FORMAT, base: fingerprint(originals), files: texts };
    storage.setItem(KEY_PREFIX + recipe, JSON.stringify(record));
    return "saved";
  } catch {
    return null;
  }
}

/** @param {any} record a stored or shared record, as parsed (unchecked) */
function parseRecord(record) {
  if (!record || record.v !== FORMAT || typeof record.files !== "object" || record.files === null) return null;
  /** @type {Texts} */
  const files = {};
  for (const [name, text] of Object.entries(record.files)) if (typeof text === "string") files[name] = text;
  return { base: typeof record.base === "string" ? record.base : "", files };
}

// The stored edits of `recipe` applied to the originals, or null when there are none.
// `stale` is true when they were made on another version of the recipe.
/** @param {string} recipe @param {EditorFile[]} originals */
export function loadEdits(recipe, originals, storage = defaultStorage()) {
  checkRecipe(recipe);
  checkFiles(originals, "originals");
  let record = null;
  try {
    record = parseRecord(JSON.parse(storage?.getItem(KEY_PREFIX + recipe) ?? "null"));
  } catch {
    return null; // unreadable: as if nothing were stored
  }
  if (!record) return null;
  const files = applyTexts(originals, record.files);
  if (Object.keys(editedTexts(originals, files)).length === 0) return null;
  return { files, stale: record.base !== fingerprint(originals) };
}

/** @param {string} recipe */
export function clearEdits(recipe, storage = defaultStorage()) {
  checkRecipe(recipe);
  try {
    storage?.removeItem(KEY_PREFIX + recipe);
  } catch {
    // storage unavailable: nothing to clear
  }
}

/** @param {Uint8Array} bytes */
function toBase64url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** @param {string} text */
function fromBase64url(text) {
  if (!BASE64URL.test(text) || text.length % 4 === 1) throw new Error("it is not base64url");
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** @param {Uint8Array<ArrayBuffer>} bytes */
async function deflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** @param {Uint8Array<ArrayBuffer>} bytes @param {number} limit */
async function inflate(bytes, limit) {
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`it inflates beyond ${limit} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

// The URL fragment ("#tryit=<recipe>.<data>") that carries the edited files of `recipe`.
/** @param {string} recipe @param {EditorFile[]} originals @param {EditorFile[]} files */
export async function encodeShare(recipe, originals, files) {
  checkRecipe(recipe);
  const record = { v: FORMAT, base: fingerprint(originals), files: editedTexts(originals, files) };
  const packed = await deflate(new TextEncoder().encode(JSON.stringify(record)));
  return `${SHARE_PREFIX}${recipe}.${toBase64url(packed)}`;
}

// The recipe a fragment shares edits of, without decoding them; null for any other fragment.
/** @param {unknown} fragment */
export function shareRecipe(fragment) {
  if (typeof fragment !== "string" || !fragment.startsWith(SHARE_PREFIX)) return null;
  const recipe = fragment.slice(SHARE_PREFIX.length).split(".", 1)[0];
  return RECIPE.test(recipe) ? recipe : null;
}

// The shared edits in `fragment` applied to the originals: {recipe, files, stale}; null when
// the fragment shares nothing. A damaged share link raises an Error that says so.
/** @param {string} fragment @param {EditorFile[]} originals */
export async function decodeShare(fragment, originals) {
  checkFiles(originals, "originals");
  const recipe = shareRecipe(fragment);
  if (recipe === null) return null;
  const data = fragment.slice(SHARE_PREFIX.length + recipe.length + 1);
  let record;
  try {
    const bytes = await inflate(fromBase64url(data), MAX_SHARED_BYTES);
    record = parseRecord(JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)));
    if (!record) throw new Error("it is not a shared edit of this version");
  } catch (error) {
    throw new Error(`The code in this link could not be read (${error.message}).`);
  }
  return { recipe, files: applyTexts(originals, record.files), stale: record.base !== fingerprint(originals) };
}

/** @param {string} line */
const isRequest = (line) => line.startsWith("t=");

// Where an edited run's transcript (`actual`, lines) first differs from the tested one
// (`recorded`): null while they agree, else {index, step, expected, actual} where step counts
// requests as the widget does (0: before the first request) and expected/actual are the two
// lines at `index` (null past an end). While the run goes on (`done: false`) a transcript that
// is a prefix of the recorded one agrees with it.
/** @param {string[]} recorded @param {string[]} actual @returns {Difference | null} */
export function compareTranscripts(recorded, actual, { done = true } = {}) {
  for (const [what, lines] of [["recorded", recorded], ["actual", actual]]) {
    if (!Array.isArray(lines) || lines.some((line) => typeof line !== "string")) {
      throw new TypeError(`${what} must be an array of transcript lines (strings)`);
    }
  }
  const common = Math.min(recorded.length, actual.length);
  let index = 0;
  while (index < common && recorded[index] === actual[index]) index++;
  if (index === common && (recorded.length === actual.length || (!done && actual.length < recorded.length))) {
    return null;
  }
  const expected = index < recorded.length ? recorded[index] : null;
  const got = index < actual.length ? actual[index] : null;
  const before = actual.slice(0, index).filter(isRequest).length;
  const step = before + (isRequest(/** @type {string} one of them is a line */ (got ?? expected)) ? 1 : 0);
  return { index, step, expected, actual: got };
}

/** @param {Difference | null} difference */
export function differenceMessage(difference) {
  if (!difference) return "same as the tested run";
  if (difference.step === 0) return "differs from the tested run before its first request";
  return `differs from the tested run at step ${difference.step}`;
}
