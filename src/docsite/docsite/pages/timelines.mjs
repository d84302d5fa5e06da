// @ts-check
// The recipes' timelines, drawn at build time by the very module the pages draw them with:
//
//   node src/docsite/docsite/pages/timelines.mjs docs/assets/tryit/timeline.mjs < jobs.json
//
// Never served. Reads a JSON list of jobs on stdin,
//   [{ "name": ..., "lines": [...], "page": bool, "window": number | null, "code": string | null }]
// and writes { name: { "svg": markup, "window": number | null } } on stdout.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** @typedef {{ name: string, lines: string[], page: boolean, window: number | null, code: string | null }} Job */
/** @typedef {{ window: number | null }} Run */
/**
 * What this script uses of timeline.mjs (imported by path: the module belongs to the page's
 * program, docsite.jscheck).
 * @typedef {{
 *   parseRun(lines: string[], options: { page: boolean, window: number | null }): Run,
 *   windowFromCode(code: string): number | null,
 *   summary(run: Run): string,
 *   draw(lanes: { title: string, run: Run }[], options: { label: string }): unknown,
 *   toMarkup(node: unknown): string,
 * }} Timeline
 */

const [module] = process.argv.slice(2);
if (!module) {
  console.error("usage: node timelines.mjs TIMELINE.mjs < JOBS.json");
  process.exit(2);
}
/** @type {Timeline} */
const timeline = await import(pathToFileURL(resolve(module)).href);
let input = "";
for await (const chunk of process.stdin) input += chunk.toString();
/** @type {Job[]} */
const jobs = JSON.parse(input);
/** @type {Record<string, { svg: string, window: number | null }>} */
const out = {};
for (const job of jobs) {
  const window = job.window ?? (job.code === null ? null : timeline.windowFromCode(job.code));
  const run = timeline.parseRun(job.lines, { page: job.page, window });
  const drawing = timeline.draw([{ title: "Tested run", run }], { label: timeline.summary(run) });
  out[job.name] = { svg: timeline.toMarkup(drawing), window: run.window };
}
process.stdout.write(JSON.stringify(out));
