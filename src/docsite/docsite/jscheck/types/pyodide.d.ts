// What the "Try it" worker (worker.mjs, snapshot.mjs) and the build's Node script
// (run_in_node.mjs) use of Pyodide and of the Emscripten module under it: only that, as the
// pinned version (docsite/runtime) has it. Some of it is Pyodide's private API (names starting
// with "_"); snapshot.mjs says why it is used.

declare namespace Pyodide {
  /** What `loadPyodide` resolves to. */
  interface API {
    readonly FS: {
      mkdirTree(path: string): void;
      writeFile(path: string, data: Uint8Array): void;
    };
    /** Package name -> where it came from. */
    readonly loadedPackages: Record<string, string>;
    readonly globals: { set(name: string, value: unknown): void };
    /** Python's value, converted: its type is the code's. */
    runPython(code: string): any;
    runPythonAsync(code: string): Promise<any>;
    loadPackage(names: string[], options?: LoadPackageOptions): Promise<unknown>;
    pyimport(name: string): PyModule;
    toPy(value: unknown): unknown;
    mountNodeFS(emscriptenPath: string, hostPath: string): void;
    makeMemorySnapshot(): Uint8Array<ArrayBuffer>;
    readonly _module: Module;
    readonly _api: { readonly config: { _makeSnapshot?: boolean } };
  }

  interface LoadPackageOptions {
    checkIntegrity?: boolean;
    messageCallback?: (message: string) => void;
    errorCallback?: (message: string) => void;
  }

  /** A Python function, as a proxy: called from JS (its answer converted: its type is the
   * function's), then destroyed. */
  interface PyCallable {
    (...args: unknown[]): any;
    callPromising?: (...args: unknown[]) => Promise<any>;
    destroy(): void;
  }

  /** A Python module, as a proxy: its attributes. */
  type PyModule = Record<string, PyCallable>;

  interface LoadOptions {
    indexURL: string;
    lockFileURL?: string;
    stdLibURL?: string;
    packageBaseUrl?: string;
    stdout?: (line: string) => void;
    stderr?: (line: string) => void;
    createPyodideModule?: ModuleFactory;
    _loadSnapshot?: Uint8Array;
  }

  /** pyodide.mjs */
  interface Exports {
    loadPyodide(options: LoadOptions): Promise<API>;
  }

  /** pyodide.asm.mjs: Emscripten's module factory. */
  interface AsmExports {
    default: ModuleFactory;
  }

  type ModuleFactory = (moduleArg: ModuleArg) => Promise<Module>;

  /** What the factory is given; Emscripten makes this very object the Module. */
  interface ModuleArg {
    preRun?: ((module: Module) => void) | ((module: Module) => void)[];
    monitorRunDependencies?: (left: number) => void;
  }

  interface DynamicLibraryFlags {
    loadAsync: boolean;
    global: boolean;
    nodelete: boolean;
    allowUndefined: boolean;
  }

  /** A shared library Emscripten has loaded. */
  interface DSO {
    readonly name: string;
  }

  /** The Emscripten module. */
  interface Module {
    readonly HEAP8: Int8Array;
    readonly wasmTable: WebAssembly.Table;
    readonly preloadedWasm: Record<string, unknown>;
    readonly LDSO: {
      readonly loadedLibsByHandle: Record<string, DSO>;
      readonly loadedLibsByName: Record<string, DSO | undefined>;
    };
    addRunDependency(id: string): void;
    removeRunDependency(id: string): void;
    _emscripten_resize_heap(bytes: number): number;
    loadWebAssemblyModule(module: WebAssembly.Module, flags: DynamicLibraryFlags, path: string): unknown;
    loadDynamicLibrary(path: string, flags: DynamicLibraryFlags): unknown;
  }
}
