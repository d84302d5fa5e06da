// @ts-check
// A recipe's files, as the site publishes them (_tryit/recipes/<name>.json, written by the
// docsite plugin): `files`, what the editor opens, and `runtime`, what the worker needs to run
// the recipe (the runtime carries no recipe). Fetched once per page and recipe.

/**
 * @typedef {{ files: import("./edits.mjs").EditorFile[], runtime: Record<string, string> }} RecipeFiles
 */

const FOLDER = new URL("../../_tryit/recipes/", import.meta.url);
/** @type {Map<string, Promise<RecipeFiles>>} */
const fetched = new Map();

/** @param {string} recipe @returns {Promise<RecipeFiles>} */
export function recipeFiles(recipe) {
  if (!fetched.has(recipe)) {
    const load = fetch(new URL(`${recipe}.json`, FOLDER)).then(async (response) => {
      if (!response.ok) {
        throw new Error(`the recipe's files could not be loaded (HTTP ${response.status})`);
      }
      return response.json();
    });
    load.catch(() => fetched.delete(recipe)); // a failed fetch is tried again next time
    fetched.set(recipe, load);
  }
  return /** @type {Promise<RecipeFiles>} */ (fetched.get(recipe));
}
