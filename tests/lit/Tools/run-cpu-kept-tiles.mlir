// Block-sparse kernels that walk only their kept kv tiles (--kept-tiles) on the CPU tile
// executor against the oracle: the library's two block-sparse functions (GQA with the row
// statistic, blocks of 64 x 128; causal f16 with blocks of 48 x 80 that straddle tiles), warp-
// specialised plain and persistent, and the cp.async pipeline (sm_80), whose prologue and
// loop prefetch tiles by rank ahead of the one they compute. Length 1, lengths just past a
// tile, more queries than keys, sparse and dense maps, and a map that keeps only the diagonal.
// RUN: metaattn-run %S/../../../frontend/variants/block_sparse.mlir --device=cpu --kept-tiles --target=sm_90a --batch=2 --seq-q=77 --seq-kv=130 --block-density=0.3 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/block_sparse.mlir --device=cpu --kept-tiles --target=sm_90a --batch=1 --seq-q=1 --seq-kv=257 --block-density=0.5 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/block_sparse.mlir --device=cpu --kept-tiles --target=sm_90a --batch=1 --seq-q=300 --seq-kv=129 --block-density=0 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/block_sparse.mlir --device=cpu --kept-tiles --target=sm_90a --persistent --batch=3 --seq-q=130 --seq-kv=300 --block-density=0.2 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/block_sparse.mlir --device=cpu --kept-tiles --target=sm_80 --batch=2 --seq-q=200 --seq-kv=520 --block-density=0.4 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/block_sparse.mlir --device=cpu --kept-tiles --target=sm_80 --batch=1 --seq-q=65 --seq-kv=65 --block-density=1 | FileCheck %s
// CHECK: PASS block_sparse_64x128
// CHECK: PASS block_sparse_causal_48x80
