#!/usr/bin/env bash
# Runs the eval binary over development sets for the learned follow-up experiment.
#
#   run.sh BIN OUT SET...   # reports in OUT/SET/report.json
#
# With DUMPDIR set, each set's turns are dumped to DUMPDIR/SET.jsonl; with WDIR set, each
# set is routed with the weights in WDIR/SET.json (trained without it). The router reads those
# only at commit 69b19c6 (see README.md). Only development sets.
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
bin=$1 out=$2
shift 2
spec() {
  case $1 in
    tuned) echo demo evals/testdata/datasets/*.yaml ;;
    vocab) echo evals/testdata/fresh2/agents evals/testdata/dev/vocab.yaml ;;
    fresh6 | fresh8 | fresh9 | fresh11 | fresh12 | fresh14 | fresh17 | fresh21 | multi) echo "evals/testdata/$1/agents evals/testdata/$1/dev.yaml" ;;
    # The answer sets, one file a run: the eval binary keys conversations by case id, which
    # some files share.
    adev1) echo internal/llm/offline/testdata/answers/agents internal/llm/offline/testdata/answers/dev.yaml ;;
    adev[2-7]) echo "internal/llm/offline/testdata/answers/agents internal/llm/offline/testdata/answers/dev${1#adev}.yaml" ;;
    ddev1) echo demo demo/testdata/answers-dev.yaml ;;
    ddev[2-4]) echo "demo demo/testdata/answers-dev${1#ddev}.yaml" ;;
    # The offline model's routing development sets (TestRoutingDevSets).
    rdev) echo internal/llm/offline/testdata/routing/agents internal/llm/offline/testdata/routing/dev.yaml ;;
    rfollow) echo internal/llm/offline/testdata/answers/agents internal/llm/offline/testdata/routing/followups.yaml ;;
    rfollow2) echo internal/llm/offline/testdata/routing/followups2/agents internal/llm/offline/testdata/routing/followups2.yaml ;;
    rswitch) echo internal/llm/offline/testdata/routing/followups2/agents internal/llm/offline/testdata/routing/switches.yaml ;;
    ryaml) echo internal/llm/offline/testdata/routing/yamlonly/agents internal/llm/offline/testdata/routing/yamlonly/dev.yaml ;;
    roverlap) echo internal/llm/offline/testdata/routing/overlap/agents internal/llm/offline/testdata/routing/overlap/dev.yaml ;;
    *) echo "run.sh: not a development set: $1" >&2; exit 1 ;;
  esac
}
one() {
  local s=$1 agents datasets args=()
  read -r agents datasets <<<"$(spec "$s")"
  for d in $datasets; do args+=(--dataset "$d"); done
  mkdir -p "$out/$s"
  if [ -n "${DUMPDIR:-}" ]; then rm -f "$DUMPDIR/$s.jsonl"; export SWITCHBOARD_FOLLOW_DUMP=$DUMPDIR/$s.jsonl; fi
  if [ -n "${WDIR:-}" ]; then export SWITCHBOARD_FOLLOW_WEIGHTS=$WDIR/$s.json; fi
  "$bin" eval --agents "$agents" "${args[@]}" --report "$out/$s" --no-coverage-gate --min-accuracy 0 >"$out/$s.log" 2>&1 || echo "$s failed: see $out/$s.log"
}
for s in "$@"; do spec "$s" >/dev/null; done
export -f one spec
export bin out
printf '%s\n' "$@" | xargs -P 2 -I{} bash -c 'one "$1"' _ {}
