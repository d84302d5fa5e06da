// @ts-check
// The runtime's files kept in the browser's Cache Storage (imported by worker.mjs), so that a
// later visit downloads almost nothing, whatever cache headers the server sends (many static
// hosts, and `mkdocs serve`, send none).
//
// Every entry is keyed by the sha256 of its bytes, which the build lists in
// `tryit-files.json` (docsite/runtime/build.py): a file is taken from the cache only when this
// build lists the same hash, stored only once its bytes are checked against it, and entries
// this build does not list are deleted once the runtime is ready. So a new build's files
// replace the old ones and nothing stale is ever used. The saved interpreter (snapshot.mjs)
// lives in a cache of its own.

const CACHE = "tryit-files";
// Taken once, as this module loads: the worker takes Cache Storage off its global object
// before the reader's edited code runs (lockdown.mjs), and keeps using it through this.
const cacheStorage = globalThis.caches;

// Cache Storage, or null where there is none (only secure contexts have it: https, localhost).
/** @param {string} name */
export async function openCache(name) {
  try {
    return (await cacheStorage.open(name)) || null;
  } catch {
    return null;
  }
}

/** @param {string} name */
export async function dropCache(name) {
  try {
    await cacheStorage.delete(name);
  } catch {
    // no Cache Storage here: nothing was stored
  }
}

/** @param {ArrayBuffer} buffer */
const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");

/** @param {BufferSource} bytes */
export async function sha256(bytes) {
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

// A URL that names an entry; never fetched.
/** @param {string} hash */
const entry = (hash) => new URL(`tryit-files/${hash}`, self.location.href).href;

export class FileCache {
  // `index`: {file name: sha256} of this build; `cache`: an open Cache, or null (no caching).
  /** @param {Cache | null} cache @param {Record<string, string> | null | undefined} index */
  constructor(cache, index) {
    this.cache = cache;
    this.index = index || {};
  }

  /** @param {Record<string, string> | null | undefined} index */
  static async open(index) {
    const usable = index && cacheStorage !== undefined && !!crypto.subtle;
    return new FileCache(usable ? await openCache(CACHE) : null, index);
  }

  // The stored response for `name` of this build, or null.
  /** @param {string} name */
  async get(name) {
    const hash = this.index[name];
    if (!this.cache || !hash) return null;
    return (await this.cache.match(entry(hash)).catch(() => null)) || null;
  }

  // Keep `bytes` as `name` if they are what this build lists under that name (or under
  // `alias`: a .gz file that a server sent "Content-Encoding: gzip" arrives inflated, i.e. as
  // the plain file). Returns whether they were kept.
  /**
   * @param {string} name @param {ArrayBuffer} bytes @param {string | undefined} type
   * @param {string} [alias]
   */
  async put(name, bytes, type, alias) {
    if (!this.cache) return false;
    const hash = await sha256(bytes);
    if (hash !== this.index[name] && hash !== this.index[/** @type {string} */ (alias)]) return false;
    const headers = { "Content-Type": type || "application/octet-stream" };
    await this.cache.put(entry(hash), new Response(bytes, { headers }));
    return true;
  }

  // Delete every entry this build does not list (an older build's files).
  async prune() {
    if (!this.cache) return;
    const keep = new Set(Object.values(this.index).map(entry));
    for (const request of await this.cache.keys()) {
      if (!keep.has(request.url)) await this.cache.delete(request);
    }
  }
}
