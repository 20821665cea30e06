import type { ToolResultBlock } from '../model/content.js';
import { sha256 } from '../model/hash.js';
import type { Skill } from '../skills/skill.js';
import { SkillStore } from '../skills/skill-store.js';
import { SKILL_LOAD_TOOL, type SkillTools } from '../skills/skill-tools.js';
import type { Workload, WorkloadSkill, WorkloadStep } from '../workloads/workload.js';

/**
 * A workload's skills as the skills module's `Skill`s, so the `cachet` strategy can answer
 * `skill_load` through the real `SkillTools`. Built directly rather than through
 * `parseSkillFile`: workload skills need not follow the agentskills.io name rules, and their
 * bodies are kept as written so a first load returns the same bytes the other strategies'
 * canned results carry (`# Skill: name\n\nbody`).
 *
 * @example
 * const store = workloadSkillStore(await loadWorkload('skill-varying-chat'));
 * store.get('sql-review')?.source; // 'workload:skill-varying-chat'
 */
export function workloadSkillStore(workload: Pick<Workload, 'name' | 'file' | 'skills'>): SkillStore {
  return SkillStore.of(workload.skills.map((skill) => workloadSkill(workload, skill)));
}

function workloadSkill(workload: Pick<Workload, 'name' | 'file'>, skill: WorkloadSkill): Skill {
  // The SKILL.md this skill would be, so `version` changes exactly when its name, description or body does.
  const skillFile = `---\nname: ${JSON.stringify(skill.name)}\ndescription: ${JSON.stringify(skill.description)}\n---\n${skill.body}`;
  return {
    name: skill.name,
    description: skill.description,
    allowedTools: [],
    metadata: {},
    triggers: [],
    body: skill.body,
    version: sha256(skillFile),
    file: `${workload.file ?? workload.name}#skills/${skill.name}`,
    source: `workload:${workload.name}`,
  };
}

/**
 * The step with each of its `skill_load` results replaced by what `tools` answers (the body on
 * a first load, a pointer on a re-load, an error result over budget); `tools` emits the
 * `skill.loaded` and `tool.failed` events. Only the calls the workload declared as `skillLoad`
 * (in `step.skillLoads`, in order) are run, so a workload tool that happens to share the name
 * keeps its own result.
 */
export function withSkillLoadResults(step: WorkloadStep, tools: SkillTools): WorkloadStep {
  if (step.skillLoads.length === 0) return step;
  const pending = [...step.skillLoads];
  const answers = new Map<string, ToolResultBlock>();
  for (const block of step.reply) {
    if (block.type !== 'tool_use' || block.name !== SKILL_LOAD_TOOL.name || block.input.name !== pending[0]) continue;
    pending.shift();
    answers.set(block.id, tools.execute(block).block);
  }
  return { ...step, toolResults: step.toolResults.map((result) => answers.get(result.toolUseId) ?? result) };
}
