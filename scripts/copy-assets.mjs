// Copies the non-TypeScript files the built package needs (the dashboard page) into dist/.
import { cpSync } from 'node:fs';

cpSync('src/server/dashboard', 'dist/server/dashboard', {
  recursive: true,
  filter: (source) => !source.endsWith('.ts'),
});
