// @ts-check
// The interpreter snapshot of the "Try it" worker (imported by worker.mjs).
//
// A cold start spends most of its time starting CPython and importing FastAPI, pydantic,
// httpx, requests, resq and hedron. Once that is done the worker copies the interpreter's
// memory (Pyodide's memory snapshot) into the browser's Cache Storage; the next visit restores
// it instead of starting and importing again. The snapshot never leaves the browser.
//
// A snapshot holds memory, not the JavaScript side of the runtime, so two things are redone on
// every start, identically: the shared libraries of the bundle (pydantic-core) are linked
// right after the wasm is instantiated, before CPython starts, so that they get the same
// addresses and function-table slots on every start (withDynlibs); and the bundle's files are
// written into the file system again (the worker does that in any case).

import { dropCache, openCache, sha256 } from "./files.mjs";

/**
 * @typedef {import("./download.mjs").Manifest} Manifest
 * @typedef {{ table: number, handles: [string, string][], env: Record<string, boolean>, rest?: boolean }} SnapshotMeta
 *   what restoring needs (`rest`: it needs only the rest of the files, prepared.mjs: restFiles)
 * @typedef {{
 *   bytes: Uint8Array<ArrayBuffer>, meta: SnapshotMeta, size: number,
 *   filled?: Promise<void>, shipped?: boolean,
 * }} Snapshot one to restore (`filled`: its bytes are still arriving; `shipped`: the build's)
 * @typedef {{ done: boolean, table: number, error: unknown }} Linked
 * @typedef {[string, WebAssembly.Module, Uint8Array<ArrayBuffer>]} CompiledDynlib its path, its module, its bytes
 */

const CACHE = "tryit-snapshot";
const META = "x-tryit-snapshot"; // response header holding what restoring needs (JSON)
// Bump when what a snapshot holds or how it is restored changes (the linking in withDynlibs,
// the meta): snapshots saved by an older worker are then never restored.
const FORMAT = 2;

// What Python may have read of the browser while it imported (urllib3 reads whether the page
// is cross-origin isolated; Pyodide, whether JSPI exists): a snapshot is restored only where
// these are the same as where it was made.
/** @returns {Record<string, boolean>} */
export function environment() {
  return { jspi: typeof WebAssembly.Suspending === "function", isolated: !!self.crossOriginIsolated };
}

// Whether a snapshot's meta fits this browser (see environment).
/** @param {SnapshotMeta | undefined} meta */
export function fitsHere(meta) {
  const here = environment();
  return !!meta?.env && Object.keys(here).every((name) => meta.env[name] === here[name]);
}

// The cache key of a snapshot: this worker's format, the bundle, the runtime files.
/** @param {Manifest} manifest */
export function snapshotKey(manifest) {
  return `${FORMAT}-${manifest.sha256}-${manifest.runtime}`;
}

// Wrap Pyodide's module factory so that the compiled shared libraries (`dynlibs`: a promise of
// [[path, WebAssembly.Module], ...]) are linked before CPython starts. `snapshot`, when one is
// being restored ({bytes, size, filled}): the memory is grown to hold it first, and with
// `filled` (a promise: its bytes are still arriving) the restore waits for them (one that
// cannot all be had is spoiled, so that Pyodide refuses it). Returns the factory and its
// `linked` state: {done, table, error} once the module is created.
/**
 * @param {Pyodide.ModuleFactory} factory @param {Promise<CompiledDynlib[]>} dynlibs
 * @param {Snapshot | null} [snapshot]
 */
export function withDynlibs(factory, dynlibs, snapshot = null) {
  /** @type {Linked} */
  const linked = { done: false, table: 0, error: null };
  const heapBytes = snapshot ? snapshot.size : 0;
  /** @type {Pyodide.ModuleFactory} */
  const wrapped = (moduleArg) => {
    const preRun = /** @type {((module: Pyodide.Module) => void)[]} */ ([]).concat(moduleArg.preRun || []);
    preRun.push((Module) => {
      Module.addRunDependency("tryit-dynlibs");
      Promise.all([dynlibs, snapshot?.filled?.catch(() => spoil(/** @type {Snapshot} */ (snapshot).bytes))])
        .then(([libs]) => {
          if (heapBytes > Module.HEAP8.length) Module._emscripten_resize_heap(heapBytes);
          const flags = { loadAsync: false, global: true, nodelete: true, allowUndefined: true };
          for (const [path, compiled] of libs) {
            // Emscripten links a library it finds in preloadedWasm under the same path, which
            // is also where Python's import finds the .so file (written with the bundle).
            Module.preloadedWasm[path] = Module.loadWebAssemblyModule(compiled, flags, path);
            Module.loadDynamicLibrary(path, flags);
          }
          linked.done = true;
          linked.table = Module.wasmTable.length;
        })
        .catch((error) => {
          // Python then links the library itself on import (no snapshot for this visit).
          linked.error = error;
        })
        .finally(() => Module.removeRunDependency("tryit-dynlibs"));
    });
    moduleArg.preRun = preRun; // the same object: Emscripten makes it the Module
    return factory(moduleArg);
  };
  return { factory: wrapped, linked };
}

// A snapshot whose bytes could not all be had: Pyodide then refuses it (a wrong magic number)
// and the start goes on afresh.
/** @param {Uint8Array} bytes */
function spoil(bytes) {
  bytes.fill(0, 0, 16);
}

// The build's snapshot (docsite/runtime/prepared.py), read from `response` straight
// into `bytes` (a Uint8Array of its size, which Pyodide is given at once: it sizes the memory
// and compiles the wasm meanwhile). Resolves once every byte is in and right: `parts` lists
// the sha256 of each slice of `parts.size` bytes, and each slice is checked as soon as it is
// in, while the next ones arrive (hashing all 45 MB once the last byte was in took 0.1 s).
/**
 * @param {Response} response @param {Uint8Array<ArrayBuffer>} bytes
 * @param {{ size: number, sha256: string[] }} parts
 */
export async function fill(response, bytes, parts) {
  const reader = /** @type {ReadableStream<Uint8Array>} */ (response.body).getReader();
  /** @type {Promise<true | number>[]} */
  const checks = [];
  /** @param {number} n */
  const check = (n) => {
    const slice = bytes.subarray(n * parts.size, (n + 1) * parts.size);
    checks.push(sha256(slice).then((hash) => hash === parts.sha256[n] || n));
  };
  let at = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (at + value.length > bytes.length) throw new Error("the prepared interpreter is too long");
    bytes.set(value, at);
    at += value.length;
    while ((checks.length + 1) * parts.size <= at) check(checks.length);
  }
  if (at !== bytes.length) throw new Error(`the prepared interpreter stopped at ${at} of ${bytes.length} bytes`);
  if (checks.length < parts.sha256.length) check(checks.length); // the last, shorter slice
  const wrong = (await Promise.all(checks)).find((ok) => ok !== true);
  if (checks.length !== parts.sha256.length || wrong !== undefined) {
    throw new Error(`the prepared interpreter: sha256 mismatch (slice ${wrong ?? checks.length})`);
  }
}

// Copy the interpreter's memory. Call it only while Python is idle: Pyodide refuses if Python
// still holds JavaScript objects other than its own. It also checks that its table of those
// is as it was at start, which lists the loaded packages: hide them for the copy.
//
// Pyodide's `_makeSnapshot` start option is not used: it wraps the `js` module in a Proxy that
// breaks getters of the worker's global scope (urllib3 reads `js.crossOriginIsolated`: "Illegal
// invocation"). It only enables makeMemorySnapshot, so that is switched on for the copy.
/** @param {Pyodide.API} pyodide @param {Linked} linked @returns {{ bytes: Uint8Array<ArrayBuffer>, meta: SnapshotMeta }} */
export function takeSnapshot(pyodide, linked) {
  const Module = pyodide._module;
  const { config } = pyodide._api;
  const saved = { ...pyodide.loadedPackages };
  for (const name of Object.keys(saved)) delete pyodide.loadedPackages[name];
  config._makeSnapshot = true;
  try {
    const bytes = pyodide.makeMemorySnapshot();
    // dlopen handles Python holds (C memory) and the libraries they name (JavaScript)
    const handles = Object.entries(Module.LDSO.loadedLibsByHandle)
      .filter(([handle, dso]) => handle !== "0" && dso.name !== "__main__")
      .map(([handle, dso]) => /** @type {[string, string]} */ ([handle, dso.name]));
    return { bytes, meta: { table: linked.table, handles, env: environment() } };
  } finally {
    config._makeSnapshot = false;
    Object.assign(pyodide.loadedPackages, saved);
  }
}

// After a restore: check the libraries landed where the snapshot expects them, and give
// Python's dlopen handles back their libraries. Throws if the snapshot does not fit.
/** @param {Pyodide.API} pyodide @param {Linked} linked @param {SnapshotMeta} meta */
export function relink(pyodide, linked, meta) {
  if (!fitsHere(meta)) {
    throw new Error(`made for ${JSON.stringify(meta.env)}, not ${JSON.stringify(environment())}`);
  }
  if (!linked.done) throw new Error(`shared libraries not linked: ${linked.error}`);
  if (linked.table !== meta.table) {
    throw new Error(`function table ${linked.table}, the snapshot expects ${meta.table}`);
  }
  const { LDSO } = pyodide._module;
  for (const [handle, name] of meta.handles) {
    const dso = LDSO.loadedLibsByName[name];
    if (!dso) throw new Error(`${name} is not linked`);
    LDSO.loadedLibsByHandle[handle] = dso;
  }
}

/** @param {string} key */
const entry = (key) => new URL(`snapshot/${key}`, self.location.href).href; // never fetched

/** @param {string} key @returns {Promise<Snapshot | null>} */
export async function readSnapshot(key) {
  const cache = await openCache(CACHE);
  const hit = cache && (await cache.match(entry(key)));
  if (!hit) return null;
  const meta = JSON.parse(hit.headers.get(META) || "null");
  if (!meta) return null;
  const bytes = new Uint8Array(await hit.arrayBuffer());
  return { bytes, meta, size: bytes.length };
}

// Keep one snapshot: the one for this build of the runtime.
/** @param {string} key @param {{ bytes: Uint8Array<ArrayBuffer>, meta: SnapshotMeta }} snapshot */
export async function writeSnapshot(key, { bytes, meta }) {
  const cache = await openCache(CACHE);
  if (!cache) return false;
  for (const request of await cache.keys()) await cache.delete(request);
  const headers = { "Content-Type": "application/octet-stream", [META]: JSON.stringify(meta) };
  await cache.put(entry(key), new Response(bytes, { headers }));
  return true;
}

export async function dropSnapshot() {
  await dropCache(CACHE);
}
