#!/bin/sh
# Compare two kcsim binaries on the same random scenarios: traces and printed
# final states byte for byte (a change that claims "behaviour unchanged").
# usage: xtask/trace-diff/run.sh OLD_KCSIM NEW_KCSIM [N=300] [SCRATCH=/tmp/kcsim-trace-diff]
set -eu
old=$1; new=$2; n=${3:-300}; dir=${4:-/tmp/kcsim-trace-diff}
here=$(dirname "$0")
rm -rf "$dir"; mkdir -p "$dir/in" "$dir/old" "$dir/new"
python3 "$here/gen.py" "$n" "$dir/in"
differ=0; refused=0
for f in "$dir"/in/*.json; do
  b=$(basename "$f" .json)
  "$old" run "$f" --trace "$dir/old/$b.jsonl" > "$dir/old/$b.out" 2>&1 || echo "exit $?" >> "$dir/old/$b.out"
  "$new" run "$f" --trace "$dir/new/$b.jsonl" > "$dir/new/$b.out" 2>&1 || echo "exit $?" >> "$dir/new/$b.out"
  grep -q '^exit 2' "$dir/old/$b.out" && refused=$((refused+1))
  if ! cmp -s "$dir/old/$b.out" "$dir/new/$b.out" || ! cmp -s "$dir/old/$b.jsonl" "$dir/new/$b.jsonl"; then
    differ=$((differ+1)); echo "differ: $b"
  fi
done
echo "$n scenarios, $refused refused as bad input, $differ differ"
[ "$differ" = 0 ]
