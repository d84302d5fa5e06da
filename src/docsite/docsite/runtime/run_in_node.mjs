// @ts-check
// Run a Python script's `async def main(args) -> int` inside Pyodide under Node (a build step,
// never served):
//
//   node src/docsite/docsite/runtime/run_in_node.mjs PYODIDE_DIR SCRIPT.py [ARGS...]
//
// PYODIDE_DIR holds the pinned runtime files (pyodide.mjs, the wasm, the standard library).
// The host's "/" is mounted at "/host" inside Pyodide, so pass paths as "/host/<absolute path>".
// Exits with main's status, or 1 if the script raises.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [indexDir, script, ...args] = process.argv.slice(2);
if (!indexDir || !script) {
  console.error("usage: node run_in_node.mjs PYODIDE_DIR SCRIPT.py [ARGS...]");
  process.exit(2);
}
const indexURL = resolve(indexDir) + "/";
/** @type {Pyodide.Exports} */
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);
const pyodide = await loadPyodide({ indexURL });
pyodide.FS.mkdirTree("/host");
pyodide.mountNodeFS("/host", "/");
pyodide.globals.set("__script_argv", pyodide.toPy(["/host" + resolve(script), ...args]));
try {
  const status = await pyodide.runPythonAsync(
    "import sys, runpy\nsys.argv = list(__script_argv)\n" +
      "await runpy.run_path(sys.argv[0], run_name='__run_in_node__')['main'](sys.argv[1:])",
  );
  process.exit(typeof status === "number" ? status : 1);
} catch (error) {
  console.error(String(error && error.message ? error.message : error));
  process.exit(1);
}
