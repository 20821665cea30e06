import { describe, expect, it } from 'vitest';
import { importOptional, isInstalled, MissingDependencyError, requireOptional } from './optional-dependency.js';

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
