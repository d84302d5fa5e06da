// @ts-check
// How far the "Try it" worker's start is (worker.mjs), told to the page as `progress`
// messages: the bytes downloaded, the stage, and whether the worker is busy computing rather
// than waiting for bytes (the page then waits longer for a word). It also notes when each
// stage began and each file had fully arrived, for the `ready` message (the benchmark reads
// them).

// How far the boot is (0..1) for the page's progress bar: the download by bytes (up to 0.4,
// when the manifest says how many), then each stage. A bar that only moves when this does
// costs the page no drawing in between, unlike an animated one, which on a 2-core machine
// takes CPU time from the start of Python.
/** @type {Record<string, number>} */
const STAGE_DONE = {
  "Starting Python": 0.45,
  "Restoring the interpreter saved on your last visit": 0.45,
  "Restoring a prepared interpreter": 0.45,
  "Installing packages": 0.6,
  "Importing the libraries": 0.7,
  Ready: 1,
};

export class BootProgress {
  /** @param {(message: object) => void} post sends a message to the page */
  constructor(post) {
    this.post = post;
    this.bytes = 0; // counted as they arrive, inflated
    this.expectedBytes = 0; // what the manifest says the download holds (0: unknown)
    this.wireScale = 1; // bytes on the wire per byte counted (a brotli host: the browser inflates)
    this.stage = "";
    this.pythonRuns = false; // CPython runs: its thread may now be busy for seconds without a word
    this.starting = false; // loadPyodide was called: the wasm compiles, files are linked
    /** @type {Set<string>} */
    this.inFlight = new Set(); // this worker's downloads not yet read to their end
    this.lastReport = 0;
    // ms since the first click started the boot, when each stage began (the page may have
    // started this worker long before), when each file had fully arrived, and when the
    // bundle was asked for
    this.started = 0;
    /** @type {Record<string, number>} */
    this.stageTimes = {};
    /** @type {Record<string, number>} */
    this.arrivedTimes = {};
    /** @type {number | null} */
    this.bundleAsked = null;
    // A promise per file, settled once the file has been read to its end (or has failed)
    /** @type {Record<string, { promise: Promise<void>, settle: () => void }>} */
    this.arrivals = {};
  }

  // Whether the worker is busy computing rather than waiting for bytes: CPython runs, or
  // Pyodide starts with no download of this worker under way (compiling the wasm may take many
  // seconds on a busy machine without a byte arriving).
  busy() {
    return this.pythonRuns || (this.starting && this.inFlight.size === 0);
  }

  done() {
    if (this.stage in STAGE_DONE) return STAGE_DONE[this.stage];
    return this.expectedBytes ? 0.4 * Math.min(1, this.bytes / this.expectedBytes) : null;
  }

  wire() {
    return Math.round(this.bytes * this.wireScale);
  }

  // ms since the boot started
  since() {
    return Math.round(performance.now() - this.started);
  }

  /** @param {boolean} force */
  report(force) {
    const now = performance.now();
    if (force || now - this.lastReport > 100) {
      this.lastReport = now;
      this.post({ kind: "progress", stage: this.stage, bytes: this.wire(), done: this.done(), busy: this.busy() });
    }
  }

  /** @param {string} name */
  setStage(name) {
    this.stage = name;
    this.stageTimes[name] = this.since();
    this.report(true);
  }

  /** @param {number} n */
  count(n) {
    this.bytes += n;
    this.report(false);
  }

  /** @param {string} name */
  arrival(name) {
    if (!this.arrivals[name]) {
      /** @type {() => void} */
      let settle = /** @type {any} set at once, by the promise's executor */ (undefined);
      /** @type {Promise<void>} */
      const promise = new Promise((resolve) => (settle = resolve));
      this.arrivals[name] = { promise, settle };
    }
    return this.arrivals[name];
  }

  /** @param {string} name */
  arrived(name) {
    this.arrivedTimes[name] ??= this.since();
    this.arrival(name).settle();
    if (this.inFlight.delete(name) && this.busy()) this.report(true); // the last bytes: now it computes
  }

  // `response` with a body that says when it has been read to its end, errs or is cancelled.
  /** @param {string} name @param {Response} response */
  watched(name, response) {
    const reader = /** @type {ReadableStream<Uint8Array>} it has one */ (response.body).getReader();
    const arrived = () => this.arrived(name);
    const body = new ReadableStream({
      async pull(controller) {
        try {
          const { value, done } = await reader.read();
          if (done) {
            arrived();
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (error) {
          arrived();
          controller.error(error);
        }
      },
      cancel(reason) {
        arrived();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  }
}
