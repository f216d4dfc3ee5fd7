// An esbuild plugin for the bundles Node runs (apps/server, apps/edge): V8 keeps each module's source
// text in memory for as long as the process runs, with one byte per character only when every
// character fits in one; a single dash or arrow in a comment doubles it (the server's 776 KB chunk
// took 1.5 MB). esbuild already writes code as ASCII (its default charset escapes strings, template
// literals and regular expressions), so what is left outside ASCII is in comments: replaced by '?'.
// One character for each UTF-16 unit keeps every column, so the source maps stay right.
import fs from 'node:fs';

/** @type {import('esbuild').Plugin} */
export const oneByteSource = {
  name: 'one-byte-source',
  setup(build) {
    build.onEnd((result) => {
      if (result.errors.length > 0) return;
      const outputs = Object.keys(result.metafile?.outputs ?? {}).filter((file) => file.endsWith('.js'));
      for (const file of outputs) {
        const text = fs.readFileSync(file, 'utf8');
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is what is not ASCII
        const ascii = text.replace(/[^\x00-\x7f]/g, '?');
        if (ascii !== text) fs.writeFileSync(file, ascii);
      }
    });
  },
};
