// What the site's pages offer their scripts besides the DOM.

/** The theme's (mkdocs-material's) observable of the page, told of each instant navigation. */
declare var document$: { subscribe(next: () => void): unknown } | undefined;

// Set by the browser tests only (tryit.mjs says what each does).
declare var TRYIT_SIMULATE_NO_JSPI: boolean | undefined;
declare var TRYIT_SIMULATE_NO_DECOMPRESSION: boolean | undefined;
declare var TRYIT_SIMULATE_LINK: "fast" | "slow" | undefined;

/** The visit's Python runtime, for the benchmark and the browser tests (tryit.mjs). */
declare var __tryitRuntime: unknown;

// The HTML standard's clearTimeout takes any id, null (as 0) included: a timer not set yet.
declare function clearTimeout(id: number | null | undefined): void;

// The htmx event hedron.js (src/hedron/hedron/static) listens to, as htmx 2 documents it.
interface DocumentEventMap {
  "htmx:afterRequest": CustomEvent<{ elt: Element; xhr?: XMLHttpRequest }>;
}
