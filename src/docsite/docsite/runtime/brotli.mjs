// @ts-check
// Write brotli copies of files (a build step of the "Try it" runtime, never served):
//
//   node src/docsite/docsite/runtime/brotli.mjs QUALITY SOURCE TARGET [SOURCE TARGET ...]
//
// Each TARGET is SOURCE compressed with brotli at QUALITY (0..11); a SOURCE ending in ".gz" is
// inflated first. Node's zlib does the work (Python has no brotli module of its own), on its
// thread pool, so the files are compressed in parallel.
import { readFile, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import zlib from "node:zlib";

const compress = promisify(zlib.brotliCompress);
const [quality, ...pairs] = process.argv.slice(2);
if (!quality || pairs.length === 0 || pairs.length % 2) {
  console.error("usage: node brotli.mjs QUALITY SOURCE TARGET [SOURCE TARGET ...]");
  process.exit(2);
}

/** @param {string} source @param {string} target */
async function one(source, target) {
  let data = await readFile(source);
  if (source.endsWith(".gz")) data = zlib.gunzipSync(data);
  const { constants: c } = zlib;
  const params = {
    [c.BROTLI_PARAM_QUALITY]: Number(quality),
    [c.BROTLI_PARAM_LGWIN]: 24, // the largest standard window: the files are megabytes
    [c.BROTLI_PARAM_SIZE_HINT]: data.length,
  };
  await writeFile(target, await compress(data, { params }));
}

const jobs = [];
for (let i = 0; i < pairs.length; i += 2) jobs.push(one(pairs[i], pairs[i + 1]));
await Promise.all(jobs);
