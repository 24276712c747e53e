// frontend/variants/block_sparse.mlir (built by the factory, see VariantFilesTest.cpp) through
// the whole compiler on the CPU tile executor, checked against the reference evaluator, with a
// random 0/1 block map; and lowered to tile IR by metaattn-opt. Lengths are not multiples of
// the blocks or the tiles. With 64 x 64 tiles, blocks of 64 x 128 hold whole tiles (the map is
// read once per tile, proven at compile time) while blocks of 48 x 80 do not (checked per tile
// at run time; straddling tiles evaluate the mask per element); the default tiles are run too.
// RUN: metaattn-run %S/../../../frontend/variants/block_sparse.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=300 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/block_sparse.mlir --device=cpu --batch=1 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/block_sparse.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=300 --block-m=64 --block-n=64 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/block_sparse.mlir --device=cpu --batch=1 --seq-q=200 --seq-kv=257 --block-m=64 --block-n=64 --seed=7 | FileCheck %s
// With --skip-loads the producer reads the block map too and copies no tile it skips.
// RUN: metaattn-run %S/../../../frontend/variants/block_sparse.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=300 --skip-loads | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/block_sparse.mlir --device=cpu --batch=1 --seq-q=200 --seq-kv=257 --block-m=64 --block-n=64 --seed=7 --skip-loads --persistent | FileCheck %s
// RUN: metaattn-opt %S/../../../frontend/variants/block_sparse.mlir --metaattn-lower | FileCheck %s --check-prefix=LOWER

// CHECK-NOT: FAIL
// CHECK: PASS block_sparse_64x128
// CHECK: PASS block_sparse_causal_48x80
// CHECK-NOT: FAIL

// LOWER: tile.kernel @block_sparse_64x128
// LOWER: tile.read
// LOWER: tile.kernel @block_sparse_causal_48x80
// LOWER: tile.read
