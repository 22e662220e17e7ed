#!/usr/bin/env bash
# The one-shot CUDA check: run from the repository root on a machine with a GPU.
#
#     bash tools/gpu_check.sh [OUTDIR]        # OUTDIR defaults to $OUT, else gpu_check_out
#
# It installs nothing beyond the README's setup: torch (a CUDA build) must be there already;
# lupa, if missing, comes from wheels in .whl/ (pip download lupa for that machine's Python).
# Then, each step bounded by a timeout, everything written into OUTDIR:
#   1. the CUDA cases of the test suite (every test whose id names gpu or cuda), in parallel;
#   2. benchmarks/gpu_step.py: LeNet and the GELU MLP, TinyFlow's gpu configs against PyTorch
#      eager, eager replayed as a CUDA graph and torch.compile (ratios from one run);
# (Data-parallel training on NCCL needs two GPUs; the machines lent so far have one.)
# About 6 minutes on one H100 / H200 with 16 cores.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-gpu_check_out}}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
python=${PYTHON:-python3}
if ! "$python" -c "import lupa" 2>/dev/null; then
    "$python" -m pip install -q --no-index --no-deps --no-compile --target /tmp/gpu_check_site \
        .whl/*.whl || { echo "lupa is missing and no wheel in .whl/ installs"; exit 1; }
    export PYTHONPATH=/tmp/gpu_check_site
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
{ nvidia-smi; "$python" -c "import torch, lupa; print('torch', torch.__version__, 'cuda',
torch.version.cuda, torch.cuda.get_device_name(), 'gpus', torch.cuda.device_count())"; } \
    2>&1 | tee "$out/machine.txt"

workers=$("$python" -c "import os; print(max(1, min(12, os.cpu_count() - 2)))")
parallel=()
"$python" -c "import xdist" 2>/dev/null && parallel=(-n "$workers")
echo "== CUDA tests (${parallel[*]:-one process})"
timeout "${GPU_CHECK_TEST_SECONDS:-240}" "$python" -m pytest -q -p no:cacheprovider \
    "${parallel[@]}" -k "gpu or cuda" -rfEs --junitxml="$out/cuda_tests.xml" tests \
    > "$out/cuda_tests.txt" 2>&1
status=$?
grep -E '^(FAILED|ERROR) ' "$out/cuda_tests.txt" | cut -c1-300 | head -80
tail -1 "$out/cuda_tests.txt"
echo "tests exit status: $status" | tee -a "$out/cuda_tests.txt"

echo "== benchmarks/gpu_step.py"
timeout "${GPU_CHECK_BENCH_SECONDS:-180}" "$python" benchmarks/gpu_step.py --rounds 5 --steps 20 \
    2>&1 | tee "$out/gpu_step.txt"

