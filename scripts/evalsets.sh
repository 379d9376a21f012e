#!/usr/bin/env bash
# Runs the offline model over the evaluation sets and prints one line per set: the figures
# the README's "Evals" section quotes (routing accuracy, no-route precision and recall), routing
# accuracy over follow-ups (turns expecting the previous turn's agent again), and answer
# accuracy for sets whose turns assert on replies (answers1 to answers8).
#
#   ./scripts/evalsets.sh                  # every set, two at a time (a few minutes)
#   ./scripts/evalsets.sh fresh16 fresh18  # some of them
#   TODAY=2026-11-27 ./scripts/evalsets.sh tuned   # the demo CCS's dates counted from that day
#                                                  # (switchboard eval --today), so replies naming
#                                                  # a demo date read as on the day they were written
#
# Sets: "tuned" (evals/testdata/datasets, with the demo agents), "vocab" (evals/testdata/dev/vocab.yaml, with
# fresh2's agents) and every folder of evals/testdata/ that holds a blind.yaml or a dev.yaml with its
# agents/. A set's README says whether it is still blind. Full reports are written to
# out/evalsets/<set>/report.{json,md,html}.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=out/evalsets/switchboard
mkdir -p out/evalsets
go build -o "$bin" ./cmd/switchboard

# spec prints a set's agents folder and datasets, or fails for a set it does not know.
spec() {
  case $1 in
    tuned) echo demo evals/testdata/datasets/*.yaml ;;
    vocab) echo evals/testdata/fresh2/agents evals/testdata/dev/vocab.yaml ;;
    *)
      for f in blind dev; do
        if [ -f "evals/testdata/$1/$f.yaml" ] && [ -d "evals/testdata/$1/agents" ]; then
          echo "evals/testdata/$1/agents evals/testdata/$1/$f.yaml"
          return
        fi
      done
      echo "evalsets: no set named $1 (a folder of evals/testdata/ with agents/ and blind.yaml or dev.yaml)" >&2
      return 1
      ;;
  esac
}

if [ $# -gt 0 ]; then
  sets=("$@")
else
  sets=(tuned vocab)
  for d in evals/testdata/*/; do
    d=${d%/}
    d=${d#evals/testdata/}
    if [ -d "evals/testdata/$d/agents" ] && { [ -f "evals/testdata/$d/blind.yaml" ] || [ -f "evals/testdata/$d/dev.yaml" ]; }; then
      sets+=("$d")
    fi
  done
fi
for s in "${sets[@]}"; do spec "$s" >/dev/null; done # fail on a bad name before running any

# one runs a set and prints its line; the eval's own summary line carries the figures.
one() {
  local s=$1 agents datasets args=()
  read -r agents datasets <<<"$(spec "$s")"
  for d in $datasets; do args+=(--dataset "$d"); done
  # --today moves the embedded demo CCS only; a set with agents of its own serves fixtures.
  if [ -n "${TODAY:-}" ] && [ "$agents" = demo ]; then args+=(--today "$TODAY"); fi
  local log=out/evalsets/$s.log
  if ! "$bin" eval --agents "$agents" "${args[@]}" --report "out/evalsets/$s" \
    --no-coverage-gate --min-accuracy 0 >"$log" 2>&1; then
    printf '%-8s  failed: see %s\n' "$s" "$log"
    return
  fi
  local file=${datasets##*/} # blind.yaml or dev.yaml: what the set was written as
  [ "$s" = tuned ] && file=datasets/
  local line answers follow
  line=$(grep -m1 '^cases ' "$log")
  # Sets whose turns assert on replies (reply_mentions/reply_excludes) also report answers.
  answers=$(sed -nE 's/.*, answers ([0-9.]+%) of .*/\1/p' <<<"$line")
  follow=$(sed -nE 's/.*, follow-ups ([0-9.]+%|n\/a), .*/\1/p' <<<"$line")
  sed -E 's/^cases [0-9]+\/[0-9]+ passed, ([0-9]+) turns: routing ([0-9.]+%), no-route precision ([^ ]+) recall ([^,]+),.*/\1 \2 \3 \4/' <<<"$line" |
    { read -r turns routing precision recall
      printf '%-8s  %-10s  %5s turns  routing %6s  no-route precision %6s  recall %6s  follow-ups %6s%s\n' \
        "$s" "$file" "$turns" "$routing" "$precision" "$recall" "$follow" "${answers:+  answers $answers}"; }
}
export -f one spec
export bin

printf '%s\n' "${sets[@]}" | xargs -P 2 -I{} bash -c 'one "$1"' _ {} | sort -k1,1V
