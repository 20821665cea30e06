import { compareCodeUnits } from './compare-code-units.js';
import type { Skill } from './skill.js';
import { DuplicateSkillError } from './skill-errors.js';

/**
 * An immutable set of skills, sorted by name (code-unit order, the same on every machine).
 * Built from loaded files or from parsed skills directly (tests, bundled skills).
 */
export class SkillStore {
  /** Skills in name order. */
  readonly skills: readonly Skill[];
  /** Skills hidden by a same-named skill of an earlier root. */
  readonly shadowed: readonly Skill[];
  private readonly byName: ReadonlyMap<string, Skill>;

  private constructor(skills: Skill[], shadowed: Skill[]) {
    this.skills = Object.freeze([...skills].sort((left, right) => compareCodeUnits(left.name, right.name)));
    this.shadowed = Object.freeze(shadowed);
    this.byName = new Map(this.skills.map((skill) => [skill.name, skill]));
  }

  /** A store from one list; two skills with the same name are an error. */
  static of(skills: readonly Skill[]): SkillStore {
    const seen = new Map<string, Skill>();
    for (const skill of skills) {
      const earlier = seen.get(skill.name);
      if (earlier) throw new DuplicateSkillError(skill.name, earlier.file, skill.file);
      seen.set(skill.name, skill);
    }
    return new SkillStore([...seen.values()], []);
  }

  /** A store from several roots in priority order: the first root declaring a name wins. */
  static fromRoots(roots: ReadonlyArray<readonly Skill[]>): SkillStore {
    const kept = new Map<string, Skill>();
    const shadowed: Skill[] = [];
    for (const skills of roots) {
      const inThisRoot = new Set<string>();
      for (const skill of skills) {
        if (inThisRoot.has(skill.name)) throw new DuplicateSkillError(skill.name, kept.get(skill.name)?.file ?? '', skill.file);
        inThisRoot.add(skill.name);
        if (kept.has(skill.name)) shadowed.push(skill);
        else kept.set(skill.name, skill);
      }
    }
    return new SkillStore([...kept.values()], shadowed);
  }

  get(name: string): Skill | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get size(): number {
    return this.skills.length;
  }

  get names(): string[] {
    return this.skills.map((skill) => skill.name);
  }
}
