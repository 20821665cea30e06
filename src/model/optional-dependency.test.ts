import { describe, expect, it } from 'vitest';
import {
  importOptional,
  isInstalled,
  MissingDependencyError,
  missingDependencyOf,
  requireOptional,
} from './optional-dependency.js';

describe('optional dependencies', () => {
  it('loads an installed package', () => {
    const yaml = requireOptional<{ parse(text: string): unknown }>('yaml', 'yaml', 'a test');
    expect(yaml.parse('a: 1')).toEqual({ a: 1 });
    expect(isInstalled('yaml')).toBe(true);
  });

  it('names a missing package and the install command', async () => {
    expect(isInstalled('cachet-no-such-package')).toBe(false);
    expect(() => requireOptional('cachet-no-such-package', 'cachet-no-such-package', 'The widget')).toThrow(
      MissingDependencyError,
    );
    expect(() => requireOptional('cachet-no-such-package', 'cachet-no-such-package', 'The widget')).toThrow(
      'The widget needs the optional package cachet-no-such-package: npm install cachet-no-such-package',
    );
    await expect(importOptional('cachet-no-such-package', 'cachet-no-such-package', 'The widget')).rejects.toMatchObject({
      code: 'dependency_missing',
      packageName: 'cachet-no-such-package',
    });
  });
});

describe('missingDependencyOf', () => {
  it('finds the missing package behind a wrapped error, and nothing behind other errors', () => {
    const missing = new MissingDependencyError('hono @hono/node-server', 'cachet serve');
    expect(missing.message).toBe(
      'cachet serve needs the optional packages hono @hono/node-server: npm install hono @hono/node-server',
    );
    expect(missingDependencyOf(new Error('start failed', { cause: missing }))).toBe(missing);
    expect(missingDependencyOf(new Error('plain'))).toBeNull();
    expect(missingDependencyOf('not an error')).toBeNull();
  });
});
