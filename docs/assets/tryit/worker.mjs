// The "Try it" Web Worker: loads Pyodide from this site (never another origin), installs the
// libraries (the bundle; without it every wheel, through the site's own lockfile), imports
// them, keeps that interpreter for the next visit or restores the one kept last time
// (snapshot.mjs), then relays messages to Python (`tryit.browser.handle`). No stepping logic
// lives here.

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
let pythonRuns = false; // the interpreter has started (no more risk of the wasm MIME hang)

// How far the boot is (0..1) for the page's progress bar: the download by bytes (up to 0.4,
// when the manifest says how many), then each stage. A bar that only moves when this does
// costs the page no drawing in between, unlike an animated one, which on a 2-core machine
// takes CPU time from the start of Python.
let expectedBytes = 0;
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

function report(force) {
  const now = performance.now();
  if (force || now - lastReport > 100) {
    lastReport = now;
    postMessage({ kind: "progress", stage, bytes, done: done(), python: pythonRuns });
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

async function fetchInflated(input, init) {
  const url = new URL(input instanceof Request ? input.url : String(input), self.location.href);
  const type = PRECOMPRESSED[url.pathname.split("/").pop()];
  if (!type || !canInflate) return null;
  const packed = await realFetch(url.href + ".gz", init).catch(() => null);
  if (!packed || !packed.ok || !packed.body) return null; // the plain file, then
  // A server that labels .gz files "Content-Encoding: gzip" has had the browser inflate it.
  const inflated = /gzip/i.test(packed.headers.get("content-encoding") || "");
  const body = inflated
    ? counted(packed.body)
    : counted(packed.body).pipeThrough(new DecompressionStream("gzip"));
  return new Response(body, { headers: { "Content-Type": type } });
}

const realFetch = self.fetch.bind(self);
self.fetch = async (input, init) => {
  const inflated = await fetchInflated(input, init);
  if (inflated) return inflated;
  const response = await realFetch(input, init);
  const type = response.headers.get("content-type") || "";
  if (response.url.endsWith(".wasm") && !type.startsWith("application/wasm")) {
    // Pyodide would hang here without an error: say what is wrong instead.
    const reason = `the server sends ${response.url.split("/").pop()} as "${type}", not application/wasm`;
    postMessage({ kind: "failed", reason });
    throw new Error(reason);
  }
  if (!response.ok || !response.body) return response;
  return new Response(counted(response.body), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};

// The bundle (scripts/site/bundle.py): every wheel, unpacked, in one gzip stream. It needs
// DecompressionStream and Web Crypto (to check its sha256); without them, or if anything about
// it fails, every wheel goes through Pyodide's loadPackage instead (slower, same files).
function canUseBundle() {
  return canInflate && !!crypto.subtle;
}

async function fetchManifest() {
  const response = await fetch(new URL("tryit-bundle.json", PYODIDE));
  if (!response.ok) throw new Error(`tryit-bundle.json: HTTP ${response.status}`);
  return response.json();
}

async function fetchBundle(manifest) {
  // through the wrapper: inflated here, or by the browser if the server says Content-Encoding
  const response = await fetch(new URL(manifest.file, PYODIDE));
  if (!response.ok) throw new Error(`${manifest.file}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== manifest.sha256) throw new Error(`${manifest.file}: sha256 mismatch`);
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

// Pyodide's Emscripten module factory (pyodide.asm.mjs, 1.25 MB). Pyodide would import() it,
// which the fetch wrapper never sees: import the inflated copy from a blob URL instead, or the
// plain file if that is not possible.
async function importEmscriptenModule() {
  const plain = new URL("pyodide.asm.mjs", PYODIDE).href;
  const inflated = await fetchInflated(plain);
  if (inflated) {
    const blob = new Blob([await inflated.arrayBuffer()], { type: "text/javascript" });
    const url = URL.createObjectURL(blob);
    try {
      return (await import(url)).default;
    } catch (error) {
      console.warn("tryit: importing the plain pyodide.asm.mjs instead:", error);
    } finally {
      URL.revokeObjectURL(url);
    }
  }
  return (await import(plain)).default;
}

let browser = null;
let jspi = false;

// Start the interpreter: afresh, or from a snapshot ({bytes, meta}) when given one. With the
// bundle, its shared libraries are linked before CPython starts (snapshot.mjs explains why).
async function start({ loadPyodide, factory, manifest, dynlibs, snapshot }) {
  let linked = null;
  if (!snapshot) {
    const plain = factory;
    factory = (moduleArg) => {
      // Emscripten runs these once the wasm is instantiated, before CPython starts
      moduleArg.preRun = [].concat(moduleArg.preRun || [], () => setStage("Starting Python"));
      return plain(moduleArg);
    };
  }
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
      if (snapshot) throw error; // a restored interpreter needs those very files
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

async function boot() {
  bootStarted = performance.now();
  setStage("Downloading the Python runtime");
  const runtime = Promise.all([
    import(new URL("pyodide.mjs", PYODIDE).href),
    importEmscriptenModule(),
  ]);
  runtime.catch(() => {});
  const manifest = canUseBundle() ? await fetchManifest().catch(warnNull("no bundle")) : null;
  expectedBytes = manifest?.download || 0;
  const bundle = manifest ? fetchBundle(manifest) : null; // downloads while Pyodide starts
  const dynlibs = manifest ? compileDynlibs(manifest, bundle) : null;
  bundle?.catch(() => {});
  dynlibs?.catch(() => {});
  const key = manifest && snapshots ? snapshotKey(manifest) : null;
  const saved = key ? readSnapshot(key).catch(warnNull("no saved interpreter")) : null;
  const [{ loadPyodide }, factory] = await runtime;
  const parts = { loadPyodide, factory, manifest, bundle, dynlibs };
  const snapshot = await saved;
  let restored = null;
  if (snapshot) {
    setStage("Restoring the interpreter saved on your last visit");
    restored = await startAndImport(parts, snapshot).catch((error) => {
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
    bytes: Math.max(bytes, transferred),
    python: info.python,
    jspi,
    restored: !!restored,
    stages: stageTimes,
  });
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

// The page may start this worker ahead of time: nothing loads until its first message
// ({kind: "start"}, sent on the reader's first click).
let booted = null;
function bootOnce() {
  booted ||= boot().catch((error) => {
    postMessage({ kind: "failed", reason: String(error && error.message ? error.message : error) });
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
