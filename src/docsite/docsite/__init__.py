"""The documentation site's machinery: how a recipe becomes a page, a demo, a download and a test.

- :mod:`docsite.plugin` and :mod:`docsite.examples.publish`: the MkDocs plugins ``docsite`` and
  ``docsite/examples`` (registered in ``mkdocs.yml``);
- :mod:`docsite.pages`: the generated Markdown (recipe pages, widgets, learning paths, the
  component gallery, the API reference, the ``recipe.toml`` reference);
- :mod:`docsite.runtime`: the Try-it runtime (Pyodide, wheels, bytecode, bundle);
- :mod:`docsite.examples`: the standalone example tree and its publication;
- :mod:`docsite.replay` and :mod:`docsite.transcripts`: recipes run outside the site, checked
  against their transcripts;
- :mod:`docsite.testing`: the real parts the tests, replays, build and benchmarks run.

The recipe model itself is :mod:`tryit.recipe` (the browser's driver reads it too).
"""
