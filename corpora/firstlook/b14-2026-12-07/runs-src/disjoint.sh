#!/bin/bash
# usage: disjoint.sh CASE_DIR "string1" "string2" ... ; prints hits (file names only) outside CASE_DIR
cd=$1; shift
for s in "$@"; do
  hits=$(grep -rlF -- "$s" /work/shared/eval/dev /work/main/corpora /work/main/patterns /work/staging/b13 /work/staging/b14 2>/dev/null | grep -v "^$cd/" | grep -v "^/work/staging/b14/runs-src/")
  echo "[$s] -> ${hits:-no hits}"
done
