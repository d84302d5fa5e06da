// @ts-check
// What the reader's edited Python can reach in the "Try it" worker (imported by worker.mjs).
//
// Python's `js` module is the worker's global object, and the worker runs with the site's
// origin. Through it, edited code (the reader's, or someone else's in a share link) could read
// and write the site's Cache Storage (where the next visit's runtime and interpreter are
// kept), its IndexedDB and files, send requests with the reader's cookies, or start a worker
// of its own with all of that. So once the runtime is ready, before any message of the page
// reaches Python, those are taken off the global object, on every level of its prototype
// chain (Chromium keeps `caches` and `fetch` on WorkerGlobalScope.prototype). The worker's own
// code keeps the few it still needs in references taken when its modules loaded (files.mjs,
// download.mjs), which nothing Python can reach leads back to. What is left to edited code is
// computing and postMessage to the page, whose every message the page checks (checks.mjs).

const TAKEN = [
  "caches",
  "indexedDB",
  "fetch",
  "XMLHttpRequest",
  "WebSocket",
  "WebSocketStream",
  "WebTransport",
  "EventSource",
  "Worker",
  "SharedWorker",
  "BroadcastChannel",
  "importScripts",
  "webkitRequestFileSystem",
  "webkitRequestFileSystemSync",
  "webkitResolveLocalFileSystemURL",
  "webkitResolveLocalFileSystemSyncURL",
];
// ... and of `navigator`: its storage (origin-private files, quota), its service workers.
const TAKEN_FROM_NAVIGATOR = ["storage", "serviceWorker"];

/** @param {object} object @param {string[]} names */
function take(object, names) {
  for (let owner = object; owner; owner = Object.getPrototypeOf(owner)) {
    for (const name of names) {
      if (Object.hasOwn(owner, name)) delete /** @type {Record<string, unknown>} */ (owner)[name];
    }
  }
  const left = names.filter((name) => name in object);
  if (left.length) throw new Error(`the worker could not take ${left.join(", ")} from edited code`);
}

let done = false;

// Take them (once). Throws if one stays reachable: the worker then runs no edited code.
export function lockDown(scope = globalThis) {
  if (done) return;
  take(scope, TAKEN);
  if (scope.navigator) take(scope.navigator, TAKEN_FROM_NAVIGATOR);
  done = true;
}
