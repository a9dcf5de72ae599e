// Where the built console lives (`npm run build` writes it): the host serves this directory at /console.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The directory of the built console (index.html and its assets). */
export const consoleDir = fileURLToPath(new URL('./dist/', import.meta.url));

/** Whether the console has been built (its index.html is there). */
export function consoleBuilt() {
  return existsSync(new URL('./dist/index.html', import.meta.url));
}
