#!/usr/bin/env bash
# Offline plan diff of every stack between two checkouts, as one Markdown PR comment.
#
#   offline-diff.sh BASE_DIR HEAD_DIR OUT_DIR
#
# Each tree plans its stacks with its OWN code (PYTHONPATH=<tree>/components), so the diff shows what
# the pull request changes: code and stack files alike. No credentials are needed or read. A stack
# the base cannot plan (new stack, or a base without the `plan` command) is diffed against an empty
# plan. Writes OUT_DIR/comment.md and OUT_DIR/plans/{base,head}-<stack>.json; exit 0 unless the
# head itself cannot be planned or the diff finds a change the real `pulumi up` refuses (diff exit 4) or that
# pathways-gke's own policy refuses (diff exit 5): all are failures of the pull request (the comment is written
# either way).
set -uo pipefail

base_dir=$(cd "$1" && pwd)
head_dir=$(cd "$2" && pwd)
out_dir=$3
python=${PYTHON:-python3}
mkdir -p "$out_dir/plans"
out_dir=$(cd "$out_dir" && pwd)
comment="$out_dir/comment.md"

stacks() {  # stack names of a tree: stacks/Pulumi.<name>.yaml
  local dir=$1/stacks
  [ -d "$dir" ] || return 0
  for f in "$dir"/Pulumi.*.yaml; do
    [ -e "$f" ] || continue
    f=${f##*/Pulumi.}
    echo "${f%.yaml}"
  done
}

plan() {  # plan TREE STACK OUTFILE -> 0 when a plan was written
  local tree=$1 stack=$2 file=$3 rc
  (cd "$tree" && PYTHONPATH="$tree/components" "$python" -m pathways_gke plan --stack "$stack" --json \
      >"$file" 2>"$file.log")
  rc=$?
  # 3 = a mandatory policy violation: the plan on stdout is still complete (reported below)
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    return 1
  fi
  [ -s "$file" ]
}

empty_plan() {
  printf '{"stack": "%s", "project": "pathways-gke", "resources": []}\n' "$1" >"$2"
}

status=0
all=$( (stacks "$base_dir"; stacks "$head_dir") | sort -u)
{
  echo "<!-- pathways-gke-offline-diff -->"
  echo "## Offline plan diff"
  echo
  echo "Base \`$(git -C "$base_dir" rev-parse --short HEAD 2>/dev/null || echo base)\` → head \`$(git -C "$head_dir" rev-parse --short HEAD 2>/dev/null || echo head)\`, computed without cloud credentials."
  echo
} >"$comment"

for stack in $all; do
  base_plan="$out_dir/plans/base-$stack.json"
  head_plan="$out_dir/plans/head-$stack.json"
  note=""
  if ! plan "$base_dir" "$stack" "$base_plan"; then
    empty_plan "$stack" "$base_plan"
    note="_The base branch has no plan for \`$stack\` (new stack, or a base without \`pathways-gke plan\`): everything shows as added._"
  fi
  if [ -e "$head_dir/stacks/Pulumi.$stack.yaml" ]; then
    if ! plan "$head_dir" "$stack" "$head_plan"; then
      {
        echo "### \`$stack\`: the head cannot be planned"
        echo
        echo '```'
        tail -n 40 "$head_plan.log"
        echo '```'
        echo
      } >>"$comment"
      status=1
      continue
    fi
  else
    empty_plan "$stack" "$head_plan"
    note="_The stack file \`stacks/Pulumi.$stack.yaml\` is deleted in this pull request._"
  fi
  (cd "$head_dir" && PYTHONPATH="$head_dir/components" "$python" -m pathways_gke diff "$base_plan" "$head_plan" \
      --markdown --title "\`$stack\`" >>"$comment" 2>>"$out_dir/diff.log") || status=1
  echo >>"$comment"
  if [ -n "$note" ]; then
    printf '%s\n\n' "$note" >>"$comment"
  fi
  if grep -q '^policy:' "$head_plan.log" 2>/dev/null; then
    {
      echo "<details><summary>Policy findings for <code>$stack</code></summary>"
      echo
      echo '```'
      grep -E '^(policy:|  - \[)' "$head_plan.log" | head -n 60
      echo '```'
      echo
      echo "</details>"
      echo
    } >>"$comment"
  fi
done
exit $status
