// What the "Try it" worker finds in Chromium besides the DedicatedWorker's own scope.

declare namespace WebAssembly {
  // JavaScript Promise Integration (JSPI): what lets Python wait for the page synchronously.
  var Suspending: (new (fn: Function) => object) | undefined;
  var promising: ((fn: Function) => Function) | undefined;
}
