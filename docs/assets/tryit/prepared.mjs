// @ts-check
// The prepared interpreter of the "Try it" runtime (imported by worker.mjs): a snapshot of the
// runtime started and imported, made at build time by this worker itself in headless Chromium
// (docsite/runtime/prepared.py), which a first visit restores instead of starting
// CPython and importing, when the link is fast enough for its extra megabytes.

import { PYODIDE } from "./download.mjs";
import { fill, fitsHere, snapshotKey } from "./snapshot.mjs";

// It is downloaded only when the link gave the runtime's JavaScript (0.23 MB) at least this
// many bytes a second. Measured from a host serving the .br copies, with Chromium's network
// emulation (20 ms latency), a first visit with the snapshot (15.3 MB) / without (8.5 MB):
// 20 Mbit/s 7.9 s / 7.2-8.0 s, 30 Mbit/s 6.0 s / 6.4-6.6 s, 40 Mbit/s 4.7-5.1 s / 5.6-5.8 s,
// 60 Mbit/s 3.9-4.1 s / 5.4-6.0 s, loopback 1.7-1.8 s / 4.2-4.8 s. That file came at 0.9-1.3
// MB/s on the 20 Mbit/s link (1.7 once, on a machine busy building a site), 0.63-0.64 at 10,
// 1.5-1.7 at 30, 1.7-2.0 at 40, 1.5-2.6 at 60, 3.6-9.2 on loopback.
export const FAST_LINK = 1.6e6;

// Bytes a second the link gave pyodide.asm.mjs (the first file of a quarter megabyte), from
// the browser's own timing of its download; null when it did not come from the server (kept
// from an earlier visit). `forced` ("fast", "slow"; tests only) answers for the link.
/** @param {string | null} [forced] */
export function linkSpeed(forced = null) {
  if (forced === "fast") return Infinity;
  if (forced === "slow") return 0;
  const name = new URL("pyodide.asm.mjs", PYODIDE).href;
  const entry = /** @type {PerformanceResourceTiming[]} */ (performance.getEntriesByType("resource")).findLast((e) => e.name.startsWith(name));
  if (!entry || !entry.encodedBodySize) return null;
  return entry.encodedBodySize / (Math.max(entry.responseEnd - entry.responseStart, 1) / 1000);
}

// The build's snapshot, when this browser can restore it, the host serves the .br copies
// (`downloads.brotli`: from a host that sends files as they are, the .gz copies would take a
// first visit over the 16 MB the site allows itself) and the link is fast: {bytes, filled,
// meta, size, shipped}, else null. Its bytes arrive into `bytes` while the wasm compiles
// (snapshot.mjs: fill); `filled` rejects when it cannot be had or fails its check, and the
// start then goes on afresh. It is not kept with the other files: once restored, the worker
// keeps it as the interpreter saved for the next visit.
/**
 * @param {import("./download.mjs").Manifest | null} manifest
 * @param {import("./download.mjs").Downloads} downloads @param {string | null} forced
 * @returns {import("./snapshot.mjs").Snapshot | null}
 */
export function shippedSnapshot(manifest, downloads, forced) {
  const shipped = manifest?.snapshot;
  if (!shipped || shipped.key !== snapshotKey(manifest) || !fitsHere(shipped.meta)) return null;
  if (!downloads.brotli || !(/** @type {number} null: unknown, not fast */ (linkSpeed(forced)) >= FAST_LINK)) return null;
  const bytes = new Uint8Array(shipped.size);
  const filled = downloads
    .file(shipped.file, undefined, { gzipOnly: true })
    .then((response) => fill(response, bytes, shipped.parts));
  filled.catch((error) => console.warn("tryit: the prepared interpreter could not be had:", error));
  return { bytes, filled, meta: shipped.meta, size: shipped.size, shipped: true };
}

// What a restored prepared interpreter still needs, for the build's snapshot or the copy of it
// kept from an earlier visit: the bundle and the standard library without the compiled modules
// it has imported ({manifest: the bundle's, stdlib: the URL}); else null (the whole files).
/**
 * @param {import("./download.mjs").Manifest | null} manifest
 * @param {import("./snapshot.mjs").Snapshot} snapshot
 */
export function restFiles(manifest, snapshot) {
  const rest = manifest?.snapshot?.rest;
  if (!rest || !(snapshot.shipped || snapshot.meta?.rest)) return null;
  const stdlib = new URL(rest.stdlib.file, PYODIDE).href;
  return { manifest: { ...manifest, ...rest.bundle }, stdlib };
}
