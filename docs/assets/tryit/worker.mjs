// @ts-check
// The "Try it" Web Worker: loads Pyodide from this site (never another origin), installs the
// libraries (the bundle; without it every wheel, through the site's own lockfile), imports
// them, keeps that interpreter for the next visit or restores the one kept last time
// (snapshot.mjs), then relays messages to Python (`tryit.browser.handle`). No stepping logic
// lives here.

import { checked, Downloads, DownloadError, PRECOMPRESSED, PYODIDE } from "./download.mjs";
import { FileCache } from "./files.mjs";
import { lockDown } from "./lockdown.mjs";
import { BootProgress } from "./progress.mjs";
import { linkSpeed, restFiles, shippedSnapshot } from "./prepared.mjs";
import {
  dropSnapshot,
  readSnapshot,
  relink,
  snapshotKey,
  takeSnapshot,
  withDynlibs,
  writeSnapshot,
} from "./snapshot.mjs";

// `worker.mjs?nojspi` behaves like a browser without JSPI (Safari, Firefox today): the tests
// use it to check that sync recipes then show their recorded transcript and say why.
// `?nodecompress` behaves like a browser without DecompressionStream: plain runtime files and
// every wheel through Pyodide's loadPackage (no .gz file, no bundle).
// `?link=fast` or `?link=slow` takes the link for one, whatever it measures (linkSpeed).
// `?modules`: once the interpreter is saved, say which compiled modules it had imported (the
// build makes its prepared interpreter that way: docsite/runtime/prepared.py).
/**
 * @import { Dynlib, Manifest, ShippedSnapshot } from "./download.mjs"
 * @import { CompiledDynlib, Linked, Snapshot, SnapshotMeta } from "./snapshot.mjs"
 */
/**
 * What a start needs (`bundle` and `dynlibs` come with the manifest; `stdlib`: a restore's).
 * @typedef {{
 *   loadPyodide: Pyodide.Exports["loadPyodide"], factory: Pyodide.ModuleFactory, manifest: Manifest | null,
 *   bundle: Promise<Uint8Array<ArrayBuffer>> | null, dynlibs: Promise<CompiledDynlib[]> | null, stdlib?: string,
 * }} Parts
 */

const flags = new URL(import.meta.url).searchParams;
if (flags.has("nojspi")) {
  delete WebAssembly.Suspending;
  delete WebAssembly.promising;
}
// Save the interpreter for the next visit, and restore it (snapshot.mjs): needs Cache Storage,
// which only secure contexts have (https, or localhost).
const snapshots = typeof caches !== "undefined";

/** @param {string} what @returns {(error: unknown) => null} */
const warnNull = (what) => (error) => {
  console.warn(`tryit: ${what}:`, error);
  return null;
};

const progress = new BootProgress((message) => postMessage(message));

// Whether this browser can inflate gzip natively. `?nodecompress` pretends it cannot (tests).
const canInflate = typeof DecompressionStream === "function" && !flags.has("nodecompress");

// The downloads of this worker (download.mjs), counted for the progress bar. Replaced once
// boot() has read the build's index: until then, and without Cache Storage, nothing is kept.
let downloads = new Downloads({ inflate: canInflate, counted: (n) => progress.count(n) });
// The downloads are kept for the next visit once the runtime is ready (keepFiles).
/** @type {() => void} */
let keepNow;
/** @type {Promise<void>} */
const keepAfter = new Promise((resolve) => (keepNow = resolve));
const realFetch = self.fetch.bind(self);

// A file of the runtime folder as Pyodide wants it (download.mjs: Downloads.file), telling
// when it has fully arrived.
/** @param {string} name @param {RequestInit} [init] @param {{ gzipOnly?: boolean }} [options] */
async function runtimeFile(name, init, options) {
  progress.inFlight.add(name);
  if (progress.starting) progress.report(true); // waiting for bytes again: the page's short limit applies
  let response;
  try {
    response = await downloads.file(name, init, options);
  } catch (error) {
    progress.arrived(name);
    throw error;
  }
  if (!response.body) progress.inFlight.delete(name); // nothing more to come
  return response.body ? progress.watched(name, response) : response;
}

// Pyodide's own downloads (the wasm, the standard library, the lockfile, wheels) come here. A
// failed one is said at once: Pyodide itself would only log it and wait (the wasm) or fail
// later with a less clear error.
self.fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input), self.location.href);
  if (!url.href.startsWith(PYODIDE.href) || url.search) return realFetch(input, init);
  try {
    return await runtimeFile(decodeURIComponent(url.pathname.slice(PYODIDE.pathname.length)), init);
  } catch (error) {
    fail(error);
    throw error;
  }
};

// The bundle (docsite/runtime/bundle.py): every wheel, unpacked, in one gzip stream. It needs
// DecompressionStream and Web Crypto (to check its sha256); without them, or if its bytes are
// not the ones the manifest lists, every wheel goes through Pyodide's loadPackage instead
// (slower, same files). One that cannot be downloaded fails the start: the wheels would come
// the same way.
function canUseBundle() {
  return canInflate && !!crypto.subtle;
}

/** @returns {Promise<Manifest>} */
async function fetchManifest() {
  return (await runtimeFile("tryit-bundle.json")).json();
}

// The build's index of its files and their sha256 (files.mjs), asked of the server on every
// start (it is what says whether the kept files are still this build's); null without one.
async function fetchIndex() {
  const response = await realFetch(new URL("tryit-files.json", PYODIDE), { cache: "no-cache" });
  if (!response.ok) throw new Error(`tryit-files.json: HTTP ${response.status}`);
  const index = await response.json();
  return { files: index.files, brotli: index.precompressed === true }; // only its .br copy says so
}

// The bundle's own worker (fetcher.mjs), when the page started one: a MessagePort to it, and
// what it says it has kept for the next visit.
/** @type {MessagePort | null} */
let fetcher = null;
let fetcherKept = Promise.resolve(0);
/** @type {MessagePort | null} */
let fetcherPort = null; // told to keep the bundle once the runtime is ready
/** @type {((error: Error) => void) | null} */
let fetcherGone = null; // rejects the bundle's download if the page says that worker died

// The bundle, downloaded and checked by its own worker (it goes on while this thread starts
// CPython), or here when there is none or it died.
/** @param {Manifest} manifest */
async function fetchBundle(manifest) {
  progress.bundleAsked = progress.since();
  progress.inFlight.add(manifest.file);
  const here = () => downloads.checkedFile(manifest.file, manifest.sha256);
  try {
    return await (fetcher ? fetchElsewhere(manifest) : here()).catch((error) => {
      if (!(error instanceof FetcherGone)) throw error;
      console.warn("tryit: downloading the bundle here:", error);
      return here();
    });
  } finally {
    progress.arrived(manifest.file);
  }
}

/** @param {Manifest} manifest */
function fetchElsewhere(manifest) {
  const port = /** @type {MessagePort} */ (fetcher);
  fetcher = null;
  fetcherPort = port;
  /** @type {(files: number) => void} */
  let keptBy;
  fetcherKept = new Promise((resolve) => (keptBy = resolve));
  /** @type {Promise<Uint8Array<ArrayBuffer>>} */
  const fetched = new Promise((resolve, reject) => {
    fetcherGone = (error) => {
      keptBy(0);
      reject(error);
    };
    port.onmessage = ({ data }) => {
      if (data.kind === "bytes") progress.count(data.n);
      else if (data.kind === "kept") keptBy(data.files);
      else if (data.kind === "bundle") {
        progress.arrivedTimes[manifest.file] = Math.round(data.at - performance.timeOrigin - progress.started);
        resolve(data.bytes);
      } else if (data.kind === "error") {
        reject(data.download ? new DownloadError(manifest.file, "", data.message) : new Error(data.message));
      }
    };
  });
  const { files, brotli } = downloads;
  const index = files.cache ? files.index : null; // else it keeps nothing either
  const { file, sha256 } = manifest;
  port.postMessage({ kind: "bundle", file, sha256, index, brotli, inflate: canInflate });
  return fetched;
}

class FetcherGone extends Error {}

// One shared library of the wheels (pydantic-core's), served as a file of its own: compiled as
// it arrives, its bytes checked against the manifest. Resolves with [path, module, bytes].
/** @param {Manifest} manifest @param {Dynlib} lib @returns {Promise<CompiledDynlib>} */
async function fetchDynlib(manifest, lib) {
  const response = await runtimeFile(lib.file); // a DownloadError fails the start
  const [streamed, kept] = /** @type {ReadableStream<Uint8Array>} */ (response.body).tee();
  const wasm = new Response(streamed, { headers: { "Content-Type": "application/wasm" } });
  const compiled = WebAssembly.compileStreaming(wasm);
  compiled.catch(() => {});
  const bytes = await checked(lib.file, new Uint8Array(await new Response(kept).arrayBuffer()), lib.sha256);
  return [manifest.site_packages + lib.path, await compiled, bytes];
}

// The shared libraries, downloading with the runtime and linked before CPython starts.
/** @param {Manifest} manifest */
function fetchDynlibs(manifest) {
  for (const lib of manifest.dynlibs) PRECOMPRESSED[lib.file] = "application/wasm";
  return Promise.all(manifest.dynlibs.map((lib) => fetchDynlib(manifest, lib)));
}

// Write the bundle's files and the shared libraries into site-packages and mark the bundle's
// packages as loaded (Python's import finds the .so files there: the libraries themselves are
// linked already).
/**
 * @param {Pyodide.API} pyodide @param {Manifest} manifest @param {Uint8Array} bytes
 * @param {CompiledDynlib[]} dynlibs
 */
function unpackBundle(pyodide, manifest, bytes, dynlibs) {
  const made = new Set();
  /** @param {string} name @param {Uint8Array} data */
  const write = (name, data) => {
    const path = manifest.site_packages + name;
    const folder = path.slice(0, path.lastIndexOf("/"));
    if (!made.has(folder)) {
      pyodide.FS.mkdirTree(folder);
      made.add(folder);
    }
    pyodide.FS.writeFile(path, data);
  };
  for (const [name, offset, size] of manifest.files) write(name, bytes.subarray(offset, offset + size));
  for (const [path, , data] of dynlibs) write(path.slice(manifest.site_packages.length), data);
  for (const name of manifest.packages) pyodide.loadedPackages[name] = "tryit bundle";
  pyodide.runPython("import importlib; importlib.invalidate_caches()");
}

// An ES module of the runtime (pyodide.mjs; pyodide.asm.mjs, Emscripten's module factory,
// 1.25 MB). import() would bypass the fetch wrapper (and so the gzip copy and the kept files):
// import it from a blob URL instead, or the plain file if that is not possible.
/** @param {string} name */
async function importModule(name) {
  const response = await runtimeFile(name); // a DownloadError fails the start
  const blob = new Blob([await response.arrayBuffer()], { type: "text/javascript" });
  const url = URL.createObjectURL(blob);
  try {
    return await import(url);
  } catch (error) {
    console.warn(`tryit: importing the plain ${name} instead:`, error);
  } finally {
    URL.revokeObjectURL(url);
  }
  return import(new URL(name, PYODIDE).href);
}

/** @type {Pyodide.PyModule | null} */
let browser = null;
let jspi = false;

// Start the interpreter: afresh, or from a snapshot ({bytes, meta, size}, and `filled` while
// its bytes are still arriving) when given one; `stdlib`: another standard library's URL (a
// restore's, restFiles). With the bundle, its shared libraries are linked before CPython
// starts (snapshot.mjs explains why).
/** @param {Parts & { snapshot: Snapshot | null }} parts */
async function start({ loadPyodide, factory, manifest, dynlibs, stdlib, snapshot }) {
  /** @type {Linked | null} */
  let linked = null;
  const plain = factory;
  factory = (moduleArg) => {
    // Emscripten runs these once the wasm is instantiated, before CPython starts
    if (!snapshot) moduleArg.preRun = /** @type {((module: Pyodide.Module) => void)[]} */ ([]).concat(moduleArg.preRun || [], () => progress.setStage("Starting Python"));
    // ... and CPython itself once nothing is awaited any more (the standard library, the
    // shared libraries): from then on the thread is busy for seconds, without a word.
    moduleArg.monitorRunDependencies = (left) => {
      if (left === 0) {
        progress.pythonRuns = true;
        progress.report(true);
      }
    };
    return plain(moduleArg);
  };
  if (manifest) {
    ({ factory, linked } = withDynlibs(factory, /** @type {Promise<CompiledDynlib[]>} with the manifest */ (dynlibs), snapshot));
  }
  progress.starting = true;
  progress.report(true);
  const pyodide = await loadPyodide({
    createPyodideModule: factory,
    indexURL: PYODIDE.href,
    lockFileURL: new URL("tryit-lock.json", PYODIDE).href,
    stdLibURL: stdlib, // undefined: the whole standard library, python_stdlib.zip
    packageBaseUrl: PYODIDE.href,
    stdout: (line) => console.log(line),
    stderr: (line) => console.warn(line),
    _loadSnapshot: snapshot ? snapshot.bytes : undefined,
  });
  if (snapshot) relink(pyodide, /** @type {Linked} a snapshot comes with a manifest */ (linked), snapshot.meta);
  return { pyodide, linked };
}

// Start, install the libraries and import them: afresh, or from a saved interpreter.
/** @param {Parts} parts @param {Snapshot | null} snapshot */
async function startAndImport(parts, snapshot) {
  const { pyodide, linked } = await start({ ...parts, snapshot });
  progress.pythonRuns = true;
  progress.setStage("Installing packages");
  let installed = false;
  if (parts.bundle) {
    try {
      // the libraries failed their check (linked.error): they come with the wheels then
      const dynlibs = await parts.dynlibs;
      unpackBundle(pyodide, /** @type {Manifest} */ (parts.manifest), await parts.bundle, /** @type {CompiledDynlib[]} */ (dynlibs));
      installed = true;
    } catch (error) {
      // a restored interpreter needs those very files; one not downloaded, the wheels too
      if (snapshot || error instanceof DownloadError) throw error;
      console.warn("tryit: installing every wheel instead of the bundle:", error);
    }
  }
  if (!installed) {
    /** @type {string[]} */
    const failures = [];
    await pyodide.loadPackage(["tryit"], {
      checkIntegrity: true,
      messageCallback: () => {},
      errorCallback: (message) => failures.push(message),
    });
    if (failures.length) throw new Error(failures.join("; "));
  }
  progress.setStage("Importing the libraries");
  browser = pyodide.pyimport("tryit.browser");
  const info = JSON.parse(await call("boot"));
  return { pyodide, linked, installed, info };
}

// The files of the compiled modules Python has imported (which a restored interpreter never
// reads again), as JSON.
const IMPORTED = `import json, sys
json.dumps(sorted({s.origin for m in list(sys.modules.values())
    if (s := getattr(m, "__spec__", None)) is not None and (s.origin or "").endswith(".pyc")}))`;

// Python is idle and everything is imported: keep this interpreter for the next visit.
/** @param {string} key @param {Pyodide.API} pyodide @param {Linked} linked */
function save(key, pyodide, linked) {
  const notSaved = warnNull("the interpreter was not saved");
  /** @type {{ bytes: Uint8Array<ArrayBuffer>, meta: SnapshotMeta } | null} */
  let copy = null;
  try {
    copy = takeSnapshot(pyodide, linked);
  } catch (error) {
    notSaved(error);
  }
  if (flags.has("modules")) {
    postMessage({ kind: "modules", files: JSON.parse(pyodide.runPython(IMPORTED)) });
  }
  setTimeout(async () => {
    const ok = copy && (await writeSnapshot(key, copy).catch(notSaved));
    postMessage({ kind: "saved", ok: !!ok });
  });
}

// The build's snapshot was restored: keep it as the interpreter saved for the next visit.
/** @param {string} key @param {Snapshot} snapshot */
function keepShipped(key, { bytes, meta }) {
  setTimeout(async () => {
    const kept = { bytes, meta: { ...meta, rest: true } }; // it too needs only restFiles
    const ok = await writeSnapshot(key, kept).catch(warnNull("the interpreter was not kept"));
    postMessage({ kind: "saved", ok: !!ok });
  });
}

// The runtime is ready: keep the files downloaded (this worker's and the bundle's), then drop an
// older build's.
async function keepFiles() {
  keepNow();
  fetcherPort?.postMessage({ kind: "keep" });
  const kept = (await Promise.all(downloads.storing)).filter(Boolean).length + (await fetcherKept);
  await downloads.files.prune().catch(warnNull("older files were not deleted"));
  postMessage({ kind: "kept", files: kept });
}

async function boot() {
  progress.started = performance.now();
  progress.setStage("Downloading the Python runtime");
  const index = await fetchIndex().catch(warnNull("no index of the files: none kept"));
  const files = await FileCache.open(index?.files);
  const brotli = !!index?.brotli;
  downloads = new Downloads({ files, brotli, inflate: canInflate, counted: (n) => progress.count(n), keepAfter });
  const hostBrotli = downloads.brotli;
  const runtime = /** @type {Promise<[Pyodide.Exports, Pyodide.AsmExports]>} */ (Promise.all([importModule("pyodide.mjs"), importModule("pyodide.asm.mjs")]));
  runtime.catch(() => {});
  const manifest = canUseBundle() ? await fetchManifest().catch(warnNull("no bundle")) : null;
  progress.expectedBytes = (hostBrotli ? manifest?.plain : manifest?.download) || 0;
  if (hostBrotli && manifest?.plain) progress.wireScale = /** @type {number} with .br copies */ (manifest.brotli) / manifest.plain;
  // CPython's start waits for the wasm, the standard library and the shared libraries; the
  // imports, much later, for the bundle: it downloads once the others are in, so that on a
  // slow link they have the bandwidth to themselves (at once when restoring: no CPython start
  // to make room for).
  const dynlibs = manifest ? fetchDynlibs(manifest) : null;
  const critical = ["pyodide.asm.wasm", "python_stdlib.zip", ...(manifest?.dynlibs || []).map((lib) => lib.file)];
  /** @type {(manifest: Manifest | null) => void} */
  let askForBundle = /** @type {any} set at once, by the promise's executor */ (undefined); // with the bundle's manifest: the whole bundle, or what a restore needs
  /** @type {Promise<Manifest | null>} */
  const bundleWanted = new Promise((resolve) => (askForBundle = resolve));
  Promise.all(critical.map((name) => progress.arrival(name).promise)).then(() => askForBundle(manifest));
  const bundle = manifest ? bundleWanted.then((which) => fetchBundle(/** @type {Manifest} */ (which))) : null;
  if (!manifest) fetcher?.postMessage({ kind: "close" }); // no bundle: its worker may go
  for (const part of [bundle, dynlibs]) {
    part?.catch((error) => error instanceof DownloadError && fail(error)); // say it at once
  }
  const key = manifest && snapshots ? snapshotKey(manifest) : null;
  const saved = key ? readSnapshot(key).catch(warnNull("no saved interpreter")) : null;
  const [{ loadPyodide }, { default: factory }] = await runtime;
  const parts = { loadPyodide, factory, manifest, bundle, dynlibs };
  const snapshot = (await saved) || shippedSnapshot(manifest, downloads, flags.get("link"));
  if (snapshot?.filled) {
    const shipped = /** @type {ShippedSnapshot} the one being filled */ (manifest?.snapshot);
    progress.inFlight.add(shipped.file);
    snapshot.filled.finally(() => progress.arrived(shipped.file)).catch(() => {});
    progress.expectedBytes = shipped.download.plain;
    progress.wireScale = shipped.download.brotli / shipped.download.plain;
  }
  /** @type {Awaited<ReturnType<typeof startAndImport>> | null} */
  let restored = null;
  let fresh = parts;
  if (snapshot) {
    const rest = restFiles(manifest, snapshot);
    askForBundle(rest ? rest.manifest : manifest);
    if (rest) fresh = { ...parts, bundle: null }; // a fresh start needs the whole bundle
    const kept = "Restoring the interpreter saved on your last visit";
    progress.setStage(snapshot.shipped ? "Restoring a prepared interpreter" : kept);
    const restoring = rest ? { ...parts, manifest: rest.manifest, stdlib: rest.stdlib } : parts;
    restored = await startAndImport(restoring, snapshot).catch((error) => {
      if (error instanceof DownloadError) throw error;
      // another build's, spoiled, or it fails once restored: never again, start afresh
      console.warn("tryit: starting afresh, the saved interpreter does not work here:", error);
      if (!snapshot.shipped) dropSnapshot();
      return null;
    });
  }
  if (!restored && fresh.bundle === null) {
    fresh.bundle = fetchBundle(/** @type {Manifest} a restore's rest came with one */ (manifest));
    fresh.bundle.catch((error) => error instanceof DownloadError && fail(error));
  }
  const { pyodide, linked, installed, info } = restored || (await startAndImport(fresh, null));
  jspi = info.jspi;
  if (key && !restored && installed && /** @type {Linked} installed: with the manifest */ (linked).done) save(key, pyodide, /** @type {Linked} */ (linked));
  if (key && restored && /** @type {Snapshot} restored */ (snapshot).shipped) keepShipped(key, /** @type {Snapshot} */ (snapshot));
  progress.setStage("Ready");
  const resources = /** @type {PerformanceResourceTiming[]} */ (performance.getEntriesByType("resource"));
  const transferred = resources.reduce((sum, r) => sum + (r.encodedBodySize || 0), 0);
  postMessage({
    kind: "ready",
    ms: performance.now() - progress.started,
    bytes: Math.max(progress.wire(), transferred),
    brotli: hostBrotli,
    python: info.python,
    jspi,
    restored: !!restored,
    shipped: !!restored && !!(/** @type {Snapshot} */ (snapshot)).shipped,
    linkSpeed: linkSpeed(flags.get("link")),
    stages: progress.stageTimes,
    arrived: progress.arrivedTimes,
    bundleAsked: progress.bundleAsked,
  });
  setTimeout(keepFiles);
}

// Enter Python "promising" when JSPI exists, so sync recipe code can wait for a click.
/** @param {string} name @param {...unknown} args */
async function call(name, ...args) {
  const fn = /** @type {Pyodide.PyModule} imported */ (browser)[name];
  try {
    return jspi && fn.callPromising ? await fn.callPromising(...args) : await fn(...args);
  } finally {
    fn.destroy();
  }
}

// What failed, in plain words for the reader (the page shows it as it is).
/** @param {any} error whatever failed: a DownloadError, Python's, the browser's */
function reasonOf(error) {
  if (error instanceof DownloadError) return error.message;
  const text = String(error && error.message ? error.message : error);
  if (/^The server sends/.test(text)) return text;
  // a Python traceback: its exception line says what it was
  const lines = text.trim().split("\n");
  const last = lines.findLast((line) => /^[\w.]+(Error|Exception|Exit)\b/.test(line)) || lines.pop();
  const { stage } = progress;
  if (stage === "Importing the libraries") return `The Python libraries could not be imported (${last})`;
  if (stage === "Installing packages") return `The Python packages could not be installed (${last})`;
  if (progress.pythonRuns) return `Python could not be started (${last})`;
  return `The Python runtime could not be loaded (${last})`;
}

// The start has failed: tell the page once (it ends this worker and may start a new one).
let failed = false;
/** @param {unknown} error */
function fail(error) {
  if (failed) return;
  failed = true;
  postMessage({ kind: "failed", reason: reasonOf(error) });
}

// The page may start this worker ahead of time: nothing loads until its first message
// ({kind: "start"}, sent on the reader's first click).
let booted = null;
function bootOnce() {
  booted ||= boot().catch((error) => {
    fail(error);
    throw error;
  });
  booted.catch(() => {});
  return booted;
}

onmessage = async (event) => {
  if (event.data.kind === "start") {
    fetcher = event.data.fetcher || null; // the bundle's own worker (fetcher.mjs)
    bootOnce();
    return;
  }
  if (event.data.kind === "fetcher gone") {
    fetcher = null;
    fetcherGone?.(new FetcherGone(event.data.reason));
    return;
  }
  const { id, message } = event.data;
  try {
    await bootOnce();
    lockDown(); // before any message reaches Python: edited code may come with it
    const started = performance.now();
    const result = JSON.parse(await call("handle", JSON.stringify(message)));
    postMessage({ kind: "reply", id, result, ms: performance.now() - started });
  } catch (error) {
    postMessage({ kind: "reply", id, error: String(error && error.message ? error.message : error) });
  }
};
