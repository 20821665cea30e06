import type { JsonObject } from '../model/json.js';

/** One skill directory root, as configured. `label` names it in events (`skill.loaded.source`). */
export interface SkillRoot {
  path: string;
  /** Defaults to the path as given. */
  label?: string;
}

/**
 * A parsed SKILL.md (agentskills.io format): YAML front matter with `name` and `description`,
 * optional `license`, `allowed-tools` and `metadata`, then a markdown body.
 */
export interface Skill {
  name: string;
  description: string;
  license?: string;
  /** `allowed-tools` split on whitespace, in file order. */
  allowedTools: string[];
  metadata: JsonObject;
  /**
   * Phrases the per-turn matcher also scores against, from `metadata.triggers` (a string or a
   * list of strings). Not part of the standard's required fields; a Cachet convention.
   */
  triggers: string[];
  /** Markdown body after the front matter, trimmed. */
  body: string;
  /** SHA-256 of the whole SKILL.md file's bytes: the skill's version. */
  version: string;
  /** Absolute path of the SKILL.md file. */
  file: string;
  /** Label of the root the skill was loaded from. */
  source: string;
}
