// What the build's Node scripts (docsite/runtime/*.mjs, docsite/pages/timelines.mjs) use of Node: only that, declared here
// rather than fetched (Node's own declarations are a package of their own, many times the size).

declare var process: {
  readonly argv: string[];
  readonly stdin: AsyncIterable<{ toString(): string }>;
  readonly stdout: { write(text: string): boolean };
  exit(code?: number): never;
};

declare var console: {
  error(...data: unknown[]): void;
  log(...data: unknown[]): void;
};

// Node's WebAssembly, as far as the Pyodide declarations name it (pyodide.d.ts).
declare namespace WebAssembly {
  interface Module {}
  interface Table {
    readonly length: number;
  }
}

interface URL {
  readonly href: string;
}

declare module "node:fs/promises" {
  export function readFile(path: string): Promise<Uint8Array>;
  export function writeFile(path: string, data: Uint8Array): Promise<void>;
}

declare module "node:path" {
  export function resolve(...paths: string[]): string;
}

declare module "node:url" {
  export function pathToFileURL(path: string): URL;
}

declare module "node:util" {
  /** A callback-last function (its callback `(error, result)`) as one returning a promise. */
  export function promisify<A, B, R>(
    fn: (a: A, b: B, callback: (error: Error | null, result: R) => void) => void,
  ): (a: A, b: B) => Promise<R>;
}

declare module "node:zlib" {
  interface BrotliOptions {
    params?: Record<number, number>;
  }
  const zlib: {
    brotliCompress(
      data: Uint8Array,
      options: BrotliOptions,
      callback: (error: Error | null, result: Uint8Array) => void,
    ): void;
    gunzipSync(data: Uint8Array): Uint8Array;
    readonly constants: {
      readonly BROTLI_PARAM_QUALITY: number;
      readonly BROTLI_PARAM_LGWIN: number;
      readonly BROTLI_PARAM_SIZE_HINT: number;
    };
  };
  export default zlib;
}
