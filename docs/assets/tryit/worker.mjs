// The "Try it" Web Worker: loads Pyodide from this site (never another origin), installs the
// libraries (the bundle; without it every wheel, through the site's own lockfile), imports
// them, keeps that interpreter for the next visit or restores the one kept last time
// (snapshot.mjs), then relays messages to Python (`tryit.browser.handle`). No stepping logic
// lives here.

import { FileCache, sha256 } from "./files.mjs";
import {
  dropSnapshot,
  readSnapshot,
  relink,
  snapshotKey,
  takeSnapshot,
  withDynlibs,
  writeSnapshot,
} from "./snapshot.mjs";

const BASE = new URL("../../_tryit/", import.meta.url);

// `worker.mjs?nojspi` behaves like a browser without JSPI (Safari, Firefox today): the tests
// use it to check that sync recipes then show their recorded transcript and say why.
// `?nodecompress` behaves like a browser without DecompressionStream: plain runtime files and
// every wheel through Pyodide's loadPackage (no .gz file, no bundle).
const flags = new URL(import.meta.url).searchParams;
if (flags.has("nojspi")) {
  delete WebAssembly.Suspending;
  delete WebAssembly.promising;
}
const PYODIDE = new URL("pyodide/", BASE);
// Save the interpreter for the next visit, and restore it (snapshot.mjs): needs Cache Storage,
// which only secure contexts have (https, or localhost).
const snapshots = typeof caches !== "undefined";

const warnNull = (what) => (error) => {
  console.warn(`tryit: ${what}:`, error);
  return null;
};

let bytes = 0;
let lastReport = 0;
let stage = "";
let pythonRuns = false; // CPython runs: its thread may now be busy for seconds without a word

// How far the boot is (0..1) for the page's progress bar: the download by bytes (up to 0.4,
// when the manifest says how many), then each stage. A bar that only moves when this does
// costs the page no drawing in between, unlike an animated one, which on a 2-core machine
// takes CPU time from the start of Python.
let expectedBytes = 0;
let wireScale = 1; // bytes on the wire per byte counted (a brotli host: the browser inflates)
const STAGE_DONE = {
  "Starting Python": 0.45,
  "Restoring the interpreter saved on your last visit": 0.45,
  "Installing packages": 0.6,
  "Importing the libraries": 0.7,
  Ready: 1,
};

function done() {
  if (stage in STAGE_DONE) return STAGE_DONE[stage];
  return expectedBytes ? 0.4 * Math.min(1, bytes / expectedBytes) : null;
}

const wire = () => Math.round(bytes * wireScale);

function report(force) {
  const now = performance.now();
  if (force || now - lastReport > 100) {
    lastReport = now;
    postMessage({ kind: "progress", stage, bytes: wire(), done: done(), python: pythonRuns });
  }
}

// ms since the first click started the boot, when each stage began (for the benchmark; the
// page may have started this worker long before)
const stageTimes = {};
let bootStarted = 0;

function setStage(name) {
  stage = name;
  stageTimes[name] = Math.round(performance.now() - bootStarted);
  report(true);
}

// Whether this browser can inflate gzip natively. `?nodecompress` pretends it cannot (tests).
const canInflate = typeof DecompressionStream === "function" && !flags.has("nodecompress");

// Runtime files the build also ships gzip-compressed as NAME.gz (scripts/site/runtime.py):
// fetched compressed and inflated here, so the wasm takes 3.5 MB on the wire instead of 9.6 MB
// (and the standard library's zip is stored, not deflated, so imports need not inflate it).
// Pyodide gets a response of the original type; without NAME.gz it gets the plain file.
const PRECOMPRESSED = {
  "pyodide.asm.wasm": "application/wasm",
  "pyodide.asm.mjs": "text/javascript",
  "python_stdlib.zip": "application/zip",
  "site-packages.bin": "application/octet-stream", // the bundle (see fetchBundle)
};

// Whether the host serves this build's brotli copies (scripts/site/precompressed.py): it does
// when the index says so (only its .br copy does). Then the big files are fetched under their
// plain names (two exist only as .br, BROTLI_NAME) and the browser inflates them natively;
// else the worker takes the .gz copies and inflates them itself.
let hostBrotli = false;
const BROTLI_NAME = {
  "python_stdlib.zip": "python_stdlib.stored.zip", // a stored zip: compresses far better
};

// Count the bytes downloaded (wasm, stdlib, wheels, bundle) for the progress display.
function counted(body) {
  return body.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        report(false);
        controller.enqueue(chunk);
      },
    }),
  );
}

// A file of the runtime that could not be downloaded, said in plain words.
class DownloadError extends Error {
  constructor(name, why) {
    const what = /\.whl$|^site-packages/.test(name) ? "packages" : "runtime";
    super(`The Python ${what} could not be downloaded (${name}: ${why})`);
  }
}

// The files of this build and their sha256 (files.mjs): replaced once boot() has read the
// build's index; until then, and without Cache Storage, nothing is cached.
let files = new FileCache(null, null);
const storing = []; // files being kept for the next visit

const realFetch = self.fetch.bind(self);

// One file of the runtime folder, as served: from the cache when this build's copy is there,
// else from the server (and then kept). Throws a DownloadError when it cannot be had.
async function getFile(name, init, type) {
  const hit = await files.get(name);
  if (hit) return hit;
  let response;
  try {
    // "no-cache": a copy in the HTTP cache is used only once the server says it is current
    // (a server that sends no cache headers lets the browser guess, and it may guess wrong)
    response = await realFetch(new URL(name, PYODIDE), { ...init, cache: "no-cache" });
  } catch {
    throw new DownloadError(name, "the connection failed");
  }
  if (!response.ok || !response.body) {
    throw new DownloadError(name, `the server answered HTTP ${response.status}`);
  }
  const served = response.headers.get("content-type") || "";
  if (name.endsWith(".wasm") && !served.startsWith("application/wasm")) {
    // Pyodide would hang here without an error: say what is wrong instead.
    throw new Error(`The server sends ${name} as "${served}", not application/wasm`);
  }
  let body = response.body;
  if (files.cache && files.index[name]) {
    let keep;
    [body, keep] = body.tee();
    // A server that labels .gz files "Content-Encoding: gzip" has had the browser inflate
    // it: these are the plain file's bytes, kept as such.
    const inflated = name.endsWith(".gz") && /gzip/i.test(response.headers.get("content-encoding") || "");
    const plain = inflated ? name.slice(0, -3) : undefined;
    const kept = new Response(keep)
      .arrayBuffer()
      .then((data) => files.put(name, data, (plain && PRECOMPRESSED[plain]) || type || served, plain));
    storing.push(kept.catch(warnNull(`${name} was not kept`)));
  }
  return new Response(counted(body), { status: response.status, headers: response.headers });
}

// A file of the runtime folder as Pyodide wants it (the plain file's bytes and type): its gzip
// copy inflated here when there is one (and the browser can), else the plain file.
// `gzipOnly`: the build serves it only compressed (the bundle).
async function runtimeFile(name, init, { gzipOnly = false } = {}) {
  const type = PRECOMPRESSED[name];
  if (type && hostBrotli) {
    const brotli = await getFile(BROTLI_NAME[name] || name, init, type).catch(
      warnNull(`no brotli copy of ${name}, taking its .gz`),
    );
    if (brotli) return brotli;
  }
  if (type && canInflate) {
    const plain = await files.get(name); // kept as plain bytes on an earlier visit
    if (plain) return plain;
    const packed = await getFile(name + ".gz", init).catch((error) => {
      if (gzipOnly) throw error;
      console.warn(`tryit: taking the plain ${name}:`, error);
      return null;
    });
    if (packed) {
      const encoded = /gzip/i.test(packed.headers.get("content-encoding") || "");
      const body = encoded ? packed.body : packed.body.pipeThrough(new DecompressionStream("gzip"));
      return new Response(body, { headers: { "Content-Type": type } });
    }
  }
  return getFile(name, init, type);
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

// The bundle (scripts/site/bundle.py): every wheel, unpacked, in one gzip stream. It needs
// DecompressionStream and Web Crypto (to check its sha256); without them, or if its bytes are
// not the ones the manifest lists, every wheel goes through Pyodide's loadPackage instead
// (slower, same files). One that cannot be downloaded fails the start: the wheels would come
// the same way.
function canUseBundle() {
  return canInflate && !!crypto.subtle;
}

async function fetchManifest() {
  return (await runtimeFile("tryit-bundle.json")).json();
}

// The build's index of its files and their sha256 (files.mjs), asked of the server on every
// start (it is what says whether the kept files are still this build's); null without one.
async function fetchIndex() {
  const response = await realFetch(new URL("tryit-files.json", PYODIDE), { cache: "no-cache" });
  if (!response.ok) throw new Error(`tryit-files.json: HTTP ${response.status}`);
  const index = await response.json();
  hostBrotli = index.precompressed === true; // only its .br copy says so
  return index.files;
}

async function fetchBundle(manifest) {
  const response = await runtimeFile(manifest.file, undefined, { gzipOnly: true });
  const bytes = new Uint8Array(await response.arrayBuffer());
  if ((await sha256(bytes)) !== manifest.sha256) throw new Error(`${manifest.file}: sha256 mismatch`);
  return bytes;
}

const fileOf = (manifest, bytes, name) => {
  const [, offset, size] = manifest.files.find(([path]) => path === name);
  return bytes.subarray(offset, offset + size);
};

// The bundle's shared libraries (pydantic-core), compiled while the runtime starts.
async function compileDynlibs(manifest, bundle) {
  const bytes = await bundle;
  return Promise.all(
    manifest.dynlibs.map(async (name) => [
      manifest.site_packages + name,
      await WebAssembly.compile(fileOf(manifest, bytes, name)),
    ]),
  );
}

// Write the bundle's files into site-packages and mark its packages as loaded.
function unpackBundle(pyodide, manifest, bytes) {
  const made = new Set();
  for (const [name, offset, size] of manifest.files) {
    const path = manifest.site_packages + name;
    const folder = path.slice(0, path.lastIndexOf("/"));
    if (!made.has(folder)) {
      pyodide.FS.mkdirTree(folder);
      made.add(folder);
    }
    pyodide.FS.writeFile(path, bytes.subarray(offset, offset + size));
  }
  for (const name of manifest.packages) pyodide.loadedPackages[name] = "tryit bundle";
  pyodide.runPython("import importlib; importlib.invalidate_caches()");
}

// An ES module of the runtime (pyodide.mjs; pyodide.asm.mjs, Emscripten's module factory,
// 1.25 MB). import() would bypass the fetch wrapper (and so the gzip copy and the kept files):
// import it from a blob URL instead, or the plain file if that is not possible.
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

let browser = null;
let jspi = false;

// Start the interpreter: afresh, or from a snapshot ({bytes, meta}) when given one. With the
// bundle, its shared libraries are linked before CPython starts (snapshot.mjs explains why).
async function start({ loadPyodide, factory, manifest, dynlibs, snapshot }) {
  let linked = null;
  const plain = factory;
  factory = (moduleArg) => {
    // Emscripten runs these once the wasm is instantiated, before CPython starts
    if (!snapshot) moduleArg.preRun = [].concat(moduleArg.preRun || [], () => setStage("Starting Python"));
    // ... and CPython itself once nothing is awaited any more (the standard library, the
    // shared libraries): from then on the thread is busy for seconds, without a word.
    moduleArg.monitorRunDependencies = (left) => {
      if (left === 0) {
        pythonRuns = true;
        report(true);
      }
    };
    return plain(moduleArg);
  };
  if (manifest) {
    ({ factory, linked } = withDynlibs(factory, dynlibs, snapshot ? snapshot.bytes.length : 0));
  }
  const pyodide = await loadPyodide({
    createPyodideModule: factory,
    indexURL: PYODIDE.href,
    lockFileURL: new URL("tryit-lock.json", PYODIDE).href,
    packageBaseUrl: PYODIDE.href,
    stdout: (line) => console.log(line),
    stderr: (line) => console.warn(line),
    _loadSnapshot: snapshot ? snapshot.bytes : undefined,
  });
  if (snapshot) relink(pyodide, linked, snapshot.meta);
  return { pyodide, linked };
}

// Start, install the libraries and import them: afresh, or from a saved interpreter.
async function startAndImport(parts, snapshot) {
  const { pyodide, linked } = await start({ ...parts, snapshot });
  pythonRuns = true;
  setStage("Installing packages");
  let installed = false;
  if (parts.bundle) {
    try {
      unpackBundle(pyodide, parts.manifest, await parts.bundle);
      installed = true;
    } catch (error) {
      // a restored interpreter needs those very files; one not downloaded, the wheels too
      if (snapshot || error instanceof DownloadError) throw error;
      console.warn("tryit: installing every wheel instead of the bundle:", error);
    }
  }
  if (!installed) {
    const failures = [];
    await pyodide.loadPackage(["tryit"], {
      checkIntegrity: true,
      messageCallback: () => {},
      errorCallback: (message) => failures.push(message),
    });
    if (failures.length) throw new Error(failures.join("; "));
  }
  setStage("Importing the libraries");
  browser = pyodide.pyimport("tryit.browser");
  const info = JSON.parse(await call("boot"));
  return { pyodide, linked, installed, info };
}

// Python is idle and everything is imported: keep this interpreter for the next visit.
function save(key, pyodide, linked) {
  const notSaved = warnNull("the interpreter was not saved");
  let copy = null;
  try {
    copy = takeSnapshot(pyodide, linked);
  } catch (error) {
    notSaved(error);
  }
  setTimeout(async () => {
    const ok = copy && (await writeSnapshot(key, copy).catch(notSaved));
    postMessage({ kind: "saved", ok: !!ok });
  });
}

// The runtime is ready: once the files downloaded are kept, drop an older build's.
async function keepFiles() {
  const kept = await Promise.all(storing);
  await files.prune().catch(warnNull("older files were not deleted"));
  postMessage({ kind: "kept", files: kept.filter(Boolean).length });
}

async function boot() {
  bootStarted = performance.now();
  setStage("Downloading the Python runtime");
  const index = await fetchIndex().catch(warnNull("no index of the files: none kept"));
  files = await FileCache.open(index);
  const runtime = Promise.all([importModule("pyodide.mjs"), importModule("pyodide.asm.mjs")]);
  runtime.catch(() => {});
  const manifest = canUseBundle() ? await fetchManifest().catch(warnNull("no bundle")) : null;
  expectedBytes = (hostBrotli ? manifest?.plain : manifest?.download) || 0;
  if (hostBrotli && manifest?.plain) wireScale = manifest.brotli / manifest.plain;
  const bundle = manifest ? fetchBundle(manifest) : null; // downloads while Pyodide starts
  const dynlibs = manifest ? compileDynlibs(manifest, bundle) : null;
  bundle?.catch((error) => error instanceof DownloadError && fail(error)); // say it at once
  dynlibs?.catch(() => {});
  const key = manifest && snapshots ? snapshotKey(manifest) : null;
  const saved = key ? readSnapshot(key).catch(warnNull("no saved interpreter")) : null;
  const [{ loadPyodide }, { default: factory }] = await runtime;
  const parts = { loadPyodide, factory, manifest, bundle, dynlibs };
  const snapshot = await saved;
  let restored = null;
  if (snapshot) {
    setStage("Restoring the interpreter saved on your last visit");
    restored = await startAndImport(parts, snapshot).catch((error) => {
      if (error instanceof DownloadError) throw error;
      // another build's, spoiled, or it fails once restored: never again, start afresh
      console.warn("tryit: starting afresh, the saved interpreter does not work here:", error);
      dropSnapshot();
      return null;
    });
  }
  const { pyodide, linked, installed, info } = restored || (await startAndImport(parts, null));
  jspi = info.jspi;
  if (key && !restored && installed && linked.done) save(key, pyodide, linked);
  setStage("Ready");
  const resources = performance.getEntriesByType("resource");
  const transferred = resources.reduce((sum, r) => sum + (r.encodedBodySize || 0), 0);
  postMessage({
    kind: "ready",
    ms: performance.now() - bootStarted,
    bytes: Math.max(wire(), transferred),
    brotli: hostBrotli,
    python: info.python,
    jspi,
    restored: !!restored,
    stages: stageTimes,
  });
  setTimeout(keepFiles);
}

// Enter Python "promising" when JSPI exists, so sync recipe code can wait for a click.
async function call(name, ...args) {
  const fn = browser[name];
  try {
    return jspi && fn.callPromising ? await fn.callPromising(...args) : await fn(...args);
  } finally {
    fn.destroy();
  }
}

// What failed, in plain words for the reader (the page shows it as it is).
function reasonOf(error) {
  if (error instanceof DownloadError) return error.message;
  const text = String(error && error.message ? error.message : error);
  if (/^The server sends/.test(text)) return text;
  // a Python traceback: its exception line says what it was
  const lines = text.trim().split("\n");
  const last = lines.findLast((line) => /^[\w.]+(Error|Exception|Exit)\b/.test(line)) || lines.pop();
  if (stage === "Importing the libraries") return `The Python libraries could not be imported (${last})`;
  if (stage === "Installing packages") return `The Python packages could not be installed (${last})`;
  if (pythonRuns) return `Python could not be started (${last})`;
  return `The Python runtime could not be loaded (${last})`;
}

// The start has failed: tell the page once (it ends this worker and may start a new one).
let failed = false;
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
    bootOnce();
    return;
  }
  const { id, message } = event.data;
  try {
    await bootOnce();
    const started = performance.now();
    const result = JSON.parse(await call("handle", JSON.stringify(message)));
    postMessage({ kind: "reply", id, result, ms: performance.now() - started });
  } catch (error) {
    postMessage({ kind: "reply", id, error: String(error && error.message ? error.message : error) });
  }
};
