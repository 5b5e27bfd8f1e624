// After `tsc -p tsconfig.build.json`: copy the files the compiled code reads at run time into dist/.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..');
for (const file of ['apis/generated/model.json']) {
  const to = join(root, 'dist', file);
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(join(root, 'src', file), to);
}
