// @ts-check
// Downloading the files of the "Try it" runtime (imported by worker.mjs and fetcher.mjs): from
// the worker's own cache when this build's copy is there (files.mjs), else from the server,
// as the host best serves them: its brotli copies when it serves precompressed files, else
// the build's gzip copies, inflated here, else the plain files.

import { FileCache, sha256 } from "./files.mjs";

/**
 * The bundle's manifest, tryit-bundle.json (docsite/runtime/bundle.py; its sizes are
 * precompressed.py's, its `snapshot` prepared.py's).
 * @typedef {[string, number, number]} BundleFile a path under site-packages, its offset, its size
 * @typedef {{ path: string, file: string, sha256: string, size: number }} Dynlib
 * @typedef {{
 *   file: string, sha256: string, size: number, site_packages: string, packages: string[],
 *   dynlibs: Dynlib[], runtime: string, download: number, files: BundleFile[],
 *   plain?: number, brotli?: number, snapshot?: ShippedSnapshot,
 * }} Manifest
 * @typedef {{
 *   file: string, key: string, sha256: string, size: number,
 *   parts: { size: number, sha256: string[] }, meta: import("./snapshot.mjs").SnapshotMeta,
 *   download: { plain: number, brotli: number },
 *   rest?: {
 *     bundle: { file: string, sha256: string, size: number, files: BundleFile[] },
 *     stdlib: { file: string, sha256: string, size: number },
 *   },
 * }} ShippedSnapshot the build's prepared interpreter (prepared.mjs)
 */

export const PYODIDE = new URL("../../_tryit/pyodide/", import.meta.url);

// Runtime files the build also ships gzip-compressed as NAME.gz (docsite/runtime/build.py):
// fetched compressed and inflated here, so the wasm takes 3.5 MB on the wire instead of 9.6 MB
// (and the standard library's zip is stored, not deflated, so imports need not inflate it).
// The caller gets a response of the original type; without NAME.gz, the plain file. The
// shared libraries the bundle's manifest lists are added by the worker (fetchDynlibs).
/** @type {Record<string, string>} */
export const PRECOMPRESSED = {
  "pyodide.asm.wasm": "application/wasm",
  "pyodide.asm.mjs": "text/javascript",
  "python_stdlib.zip": "application/zip",
  "site-packages.bin": "application/octet-stream", // the bundle (worker.mjs: fetchBundle)
  "tryit-snapshot.bin": "application/octet-stream", // the build's interpreter (shippedSnapshot)
  // ... and what it still needs of the bundle and the standard library (restFiles)
  "site-packages.rest.bin": "application/octet-stream",
  "python_stdlib.rest.zip": "application/zip",
};

// Files the build serves as brotli under another name (docsite/runtime/precompressed.py).
/** @type {Record<string, string>} */
const BROTLI_NAME = {
  "python_stdlib.zip": "python_stdlib.stored.zip", // a stored zip: compresses far better
};

// A file of the runtime that could not be downloaded, said in plain words (`message`: one said
// already, by another worker).
export class DownloadError extends Error {
  /** @param {string} name @param {string} why @param {string | null} [message] */
  constructor(name, why, message = null) {
    const what = /\.whl$|^site-packages|\.so(\.gz)?$/.test(name) ? "packages" : "runtime";
    super(message || `The Python ${what} could not be downloaded (${name}: ${why})`);
  }
}

// `bytes` (a Uint8Array) when their sha256 is `hash`; else an error that names the file.
/** @param {string} name @param {Uint8Array<ArrayBuffer>} bytes @param {string} hash */
export async function checked(name, bytes, hash) {
  if ((await sha256(bytes)) !== hash) throw new Error(`${name}: sha256 mismatch`);
  return bytes;
}

const realFetch = self.fetch.bind(self); // before the worker puts its own in its place

export class Downloads {
  // `files`: this build's FileCache; `brotli`: the host serves the .br copies; `inflate`: this
  // browser has DecompressionStream; `counted(n)`: told of every n bytes that arrive; `keepAfter`:
  // a promise, the files downloaded are kept once it resolves (once the runtime is ready:
  // hashing and storing them while it started took 0.1-0.2 s of this thread in a restore).
  /**
   * @param {{ files?: FileCache, brotli?: boolean, inflate?: boolean, counted?: (n: number) => void,
   *   keepAfter?: Promise<unknown> | null }} options
   */
  constructor({ files = new FileCache(null, null), brotli = false, inflate = false, counted = () => {}, keepAfter = null }) {
    /** @type {FileCache} */ this.files;
    /** @type {boolean} */ this.brotli;
    /** @type {boolean} */ this.inflate;
    /** @type {(n: number) => void} */ this.counted;
    /** @type {Promise<unknown>} */ this.keepAfter;
    Object.assign(this, { files, brotli, inflate, counted, keepAfter: keepAfter || Promise.resolve() });
    /** @type {Promise<boolean | null>[]} */
    this.storing = []; // promises of the files being kept for the next visit (true: kept)
  }

  // One file of the runtime folder, as served: from the cache when this build's copy is there,
  // else from the server (and then kept). Throws a DownloadError when it cannot be had.
  /** @param {string} name @param {RequestInit | undefined} init @param {string} [type] @returns {Promise<Response>} */
  async get(name, init, type) {
    const { files } = this;
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
      const kept = Promise.all([new Response(keep).arrayBuffer(), this.keepAfter]).then(([data]) =>
        files.put(name, data, (plain && PRECOMPRESSED[plain]) || type || served, plain),
      );
      this.storing.push(
        kept.catch((error) => {
          console.warn(`tryit: ${name} was not kept:`, error);
          return null;
        }),
      );
    }
    const counter = new TransformStream({
      transform: (chunk, controller) => {
        this.counted(chunk.byteLength);
        controller.enqueue(chunk);
      },
    });
    return new Response(body.pipeThrough(counter), { status: response.status, headers: response.headers });
  }

  // A file of the runtime folder as the runtime wants it (the plain file's bytes and type): its
  // brotli copy from a host that serves them, else its gzip copy inflated here when there is
  // one (and the browser can), else the plain file. `gzipOnly`: the build serves it only
  // compressed (the bundle).
  /** @param {string} name @param {RequestInit} [init] @returns {Promise<Response>} */
  async file(name, init, { gzipOnly = false } = {}) {
    const type = PRECOMPRESSED[name];
    if (type && this.brotli) {
      const brotli = await this.get(BROTLI_NAME[name] || name, init, type).catch((error) => {
        console.warn(`tryit: no brotli copy of ${name}, taking its .gz:`, error);
        return null;
      });
      if (brotli) return brotli;
    }
    if (type && this.inflate) {
      const plain = await this.files.get(name); // kept as plain bytes on an earlier visit
      if (plain) return plain;
      const packed = await this.get(name + ".gz", init).catch((error) => {
        if (gzipOnly) throw error;
        console.warn(`tryit: taking the plain ${name}:`, error);
        return null;
      });
      if (packed) {
        const encoded = /gzip/i.test(packed.headers.get("content-encoding") || "");
        const body = encoded ? packed.body : /** @type {ReadableStream<Uint8Array<ArrayBuffer>>} */ (packed.body).pipeThrough(new DecompressionStream("gzip"));
        return new Response(body, { headers: { "Content-Type": type } });
      }
    }
    return this.get(name, init, type);
  }

  // The whole of a file served only compressed (the bundle), checked against its sha256.
  /** @param {string} name @param {string} hash */
  async checkedFile(name, hash) {
    const response = await this.file(name, undefined, { gzipOnly: true });
    return checked(name, new Uint8Array(await response.arrayBuffer()), hash);
  }
}
