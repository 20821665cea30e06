#!/usr/bin/env bash
# `npm run test:deep`: every property test file (the ones whose run counts come from
# propertyRuns, src/model/test-support/property-runs.ts) with random seeds and 300 runs per
# property. CACHET_PROPERTY_RUNS / CACHET_PROPERTY_SEED override; extra arguments go to vitest.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(grep -rlE 'propertyRuns\(|checkToolLoopProperty\(' src --include='*.test.ts' | grep -v 'property-runs.test.ts' | sort)
export CACHET_PROPERTY_SEED="${CACHET_PROPERTY_SEED:-random}"
export CACHET_PROPERTY_RUNS="${CACHET_PROPERTY_RUNS:-300}"
echo "test:deep: ${#files[@]} property files, ${CACHET_PROPERTY_RUNS} runs per property, seed ${CACHET_PROPERTY_SEED}" >&2
exec node_modules/.bin/vitest run "$@" "${files[@]}"
