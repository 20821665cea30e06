// Marks, in the built declaration files (dist/**/*.d.ts), every import of an optional peer's types
// with `// @ts-expect-error`, so that a project without that peer type-checks Cachet's declarations with
// `skipLibCheck: false`: the peer's types are then `any` in Cachet's signatures (what
// `skipLibCheck: true` gives anyway), and with the peer installed they are the peer's own.
// tsc drops such comments from declaration output, hence this step after it (`npm run build`).
// Exit 1 when a declaration names an optional peer in a form this step does not mark (an inline
// `import("peer")` type), so the package check never meets an unmarked one.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MARK = '// @ts-ignore -- optional peer: without it installed, its types are `any` here';
const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const optionalPeers = Object.keys(manifest.peerDependenciesMeta ?? {}).filter(
  (name) => manifest.peerDependenciesMeta[name].optional,
);

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const isOptionalPeer = (specifier) => optionalPeers.includes(packageOf(specifier));

const problems = [];
let marked = 0;
for (const file of declarationFiles('dist')) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const output = [];
  let changed = false;
  for (const [index, line] of lines.entries()) {
    const statement = /^(?:import|export|\})\b.*\bfrom\s+'([^']+)';$/.exec(line);
    if (statement && isOptionalPeer(statement[1])) {
      if (lines[index - 1] !== MARK) {
        output.push(MARK);
        changed = true;
        marked++;
      }
    } else {
      for (const inline of line.matchAll(/import\("([^"]+)"\)/g)) {
        if (isOptionalPeer(inline[1]) && !/^\s*(\*|\/\/)/.test(line)) problems.push(`${file}: inline import("${inline[1]}")`);
      }
    }
    output.push(line);
  }
  if (changed) writeFileSync(file, output.join('\n'));
}
if (problems.length > 0) {
  console.error(`mark-optional-peer-types: unmarked optional peer types\n${problems.join('\n')}`);
  process.exit(1);
}
if (marked > 0) console.log(`mark-optional-peer-types: ${marked} optional peer imports marked in dist/`);

function declarationFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return declarationFiles(path);
    return entry.name.endsWith('.d.ts') ? [path] : [];
  });
}
