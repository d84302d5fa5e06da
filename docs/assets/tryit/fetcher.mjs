// @ts-check
// The second Web Worker of the "Try it" runtime, started by the page with the first one
// (tryit.mjs) and told what to do by it (worker.mjs, over a MessagePort): it downloads the
// bundle (site-packages.bin) and checks its sha256 while the first worker's thread starts
// CPython. A worker reads its downloads on its own thread: one busy starting Python for a second
// or more leaves the bytes waiting in the browser, and on a slow link the download stalls once
// the browser's buffer for it is full. Here it goes on.

import { DownloadError, Downloads } from "./download.mjs";
import { FileCache } from "./files.mjs";

// job: {kind: "bundle", file, sha256, index, brotli, inflate}; anything else: not needed. The
// bundle is kept for the next visit once `keepAfter` resolves (the first worker is ready).
/**
 * @param {MessagePort} port
 * @param {{ kind: string, file: string, sha256: string, index: Record<string, string> | null, brotli: boolean, inflate: boolean }} job
 * @param {Promise<void>} keepAfter
 */
async function serve(port, job, keepAfter) {
  if (job.kind !== "bundle") return;
  /** @param {number} n */
  const counted = (n) => port.postMessage({ kind: "bytes", n });
  const files = await FileCache.open(job.index);
  const { brotli, inflate } = job;
  const downloads = new Downloads({ files, brotli, inflate, counted, keepAfter });
  try {
    const bytes = await downloads.checkedFile(job.file, job.sha256);
    // when it was here, on the clock both workers share (for the benchmark's trace)
    const at = performance.timeOrigin + performance.now();
    port.postMessage({ kind: "bundle", bytes, at }, [bytes.buffer]);
  } catch (error) {
    const message = String(error && error.message ? error.message : error);
    port.postMessage({ kind: "error", download: error instanceof DownloadError, message });
  }
  const kept = await Promise.all(downloads.storing);
  port.postMessage({ kind: "kept", files: kept.filter(Boolean).length });
}

onmessage = ({ data }) => {
  const { port } = /** @type {{ port: MessagePort }} the page's first message */ (data);
  /** @type {() => void} */
  let keep;
  /** @type {Promise<void>} */
  const keepAfter = new Promise((resolve) => (keep = resolve));
  port.onmessage = ({ data: job }) => {
    if (job.kind === "keep") keep();
    else serve(port, job, keepAfter).finally(() => close());
  };
};
